import BenchSupport

/// Byte-level mutations for the fuzzers: flips, inserts of awkward bytes, deletions, duplications,
/// truncations and splices, each driven by the caller's seeded generator.
enum Mutations {
    /// Bytes that tend to break parsers.
    static let awkward: [[UInt8]] = [
        [0], [13], [10], [13, 10], [0xFF], [0xC3], [0xE2, 0x80, 0xAE], [0xF0, 0x9F, 0x98], [0x22], [0x5C], [0x7B],
        [0x7D], [0x5B], [0x5D], [0x3A], [0x2C], [0x25], [0x25, 0x7A, 0x7A], [0x20], [0x09], [0x7F],
        Array("\\u0000".utf8), Array("\\ud800".utf8), Array("1e400".utf8), Array("-0".utf8), Array("null".utf8),
        Array("NaN".utf8), Array("99999999999999999999999".utf8),
    ]

    /// `bytes` with 1 to `maximum` random mutations applied.
    static func mutate(_ bytes: [UInt8], _ random: inout SeededGenerator, maximum: Int = 4) -> [UInt8] {
        var out = bytes
        for _ in 0..<Int.random(in: 1...max(1, maximum), using: &random) {
            let position = out.isEmpty ? 0 : Int.random(in: 0..<out.count, using: &random)
            switch Int.random(in: 0..<8, using: &random) {
            case 0 where !out.isEmpty:
                out[position] ^= UInt8(1) << UInt8.random(in: 0...7, using: &random)
            case 1 where !out.isEmpty:
                out[position] = UInt8.random(in: 0...255, using: &random)
            case 2:
                out.insert(contentsOf: random.pick(awkward), at: position)
            case 3 where !out.isEmpty:
                let end = min(out.count, position + Int.random(in: 1...16, using: &random))
                out.removeSubrange(position..<end)
            case 4 where !out.isEmpty:
                let end = min(out.count, position + Int.random(in: 1...32, using: &random))
                out.insert(
                    contentsOf: out[position..<end], at: min(out.count, end + Int.random(in: 0...8, using: &random)))
            case 5 where !out.isEmpty:
                out.removeSubrange(Int.random(in: 0..<out.count, using: &random)...)
            case 6:
                out.insert(contentsOf: random.bytes(Int.random(in: 1...24, using: &random)), at: position)
            default:
                let repeats = Int.random(in: 2...200, using: &random)
                out.insert(
                    contentsOf: Array(repeating: random.pick(awkward), count: repeats).flatMap { $0 }, at: position)
            }
        }
        return out
    }
}
