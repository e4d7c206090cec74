import Foundation

/// Canary values (secrets, attribute values, tokens) and every form in which a leak could show them:
/// UTF-8, UTF-16 in both byte orders, hex and base64.
struct CanarySet {
    private var needles: [(name: String, form: String, bytes: [UInt8])] = []

    /// Adds a canary under `name`.
    mutating func add(_ name: String, _ value: String) {
        let utf8 = Array(value.utf8)
        needles.append((name, "utf-8", utf8))
        needles.append((name, "utf-16le", value.utf16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8($0 >> 8)] }))
        needles.append((name, "utf-16be", value.utf16.flatMap { [UInt8($0 >> 8), UInt8(truncatingIfNeeded: $0)] }))
        needles.append((name, "hex", Array(hex(utf8).utf8)))
        needles.append((name, "base64", Array(Data(utf8).base64EncodedString().utf8)))
    }

    /// How many canaries it holds.
    var count: Int { needles.count / 5 }

    /// ``hits(in:)`` in one pass over `bytes`, for large inputs (a server's files): the 8 bytes at each
    /// position go through a small hashed filter of the needles' first 8 bytes, and only a position
    /// that passes is compared with the needles in full.
    func hitsInOnePass(in bytes: [UInt8]) -> [String] {
        func bucket(_ word: UInt64) -> Int { Int((word &* 0x9E37_79B9_7F4A_7C15) >> 48) }
        var filter = [Bool](repeating: false, count: 65536)
        var found = Set<Int>()
        var long: [Int] = []
        for (index, needle) in needles.enumerated() {
            guard needle.bytes.count >= 8 else {
                if contains(bytes, needle.bytes) { found.insert(index) }
                continue
            }
            long.append(index)
            filter[bucket(needle.bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })] = true
        }
        let byPrefix = Dictionary(grouping: long) { needles[$0].bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) } }
        bytes.withUnsafeBytes { raw in
            guard raw.count >= 8 else { return }
            for offset in 0...(raw.count - 8) {
                let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                guard filter[bucket(word)], let candidates = byPrefix[word] else { continue }
                for index in candidates where !found.contains(index) {
                    let needle = needles[index].bytes
                    if offset + needle.count <= raw.count && raw[offset..<offset + needle.count].elementsEqual(needle) {
                        found.insert(index)
                    }
                }
            }
        }
        return found.sorted().map { "\(needles[$0].name) (\(needles[$0].form))" }
    }

    /// The canaries found in `bytes`, as `name (form)`.
    func hits(in bytes: [UInt8]) -> [String] {
        needles.filter { contains(bytes, $0.bytes) }.map { "\($0.name) (\($0.form))" }
    }
}
