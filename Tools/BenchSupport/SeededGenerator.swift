/// A small, fast, reproducible random number generator (xoshiro256**, seeded through SplitMix64):
/// every random choice the bench makes comes from one of these, so a printed seed replays a run.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    /// A generator whose whole sequence is determined by `seed`.
    public init(seed: UInt64) {
        var mixer = seed
        func next() -> UInt64 {
            mixer &+= 0x9E37_79B9_7F4A_7C15
            var z = mixer
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (next(), next(), next(), next())
    }

    /// A seed derived from `seed` for the part named `label`, so parts do not share a sequence and each
    /// can be replayed alone.
    public static func derive(_ seed: UInt64, _ label: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in label.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
        }
        var generator = SeededGenerator(seed: seed ^ hash)
        return generator.next()
    }

    /// The next 64 random bits of the seeded sequence.
    public mutating func next() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotate(state.3, 45)
        return result
    }

    /// `count` random bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            var word = next()
            for _ in 0..<min(8, count - out.count) {
                out.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return out
    }

    /// A random element of a non-empty array.
    public mutating func pick<Element>(_ choices: [Element]) -> Element {
        choices[Int.random(in: 0..<choices.count, using: &self)]
    }

    /// `true` with probability `chance` (0 to 1).
    public mutating func chance(_ chance: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < chance
    }

    /// A random lowercase hex string of `count` characters.
    public mutating func hex(_ count: Int) -> String {
        let digits = Array("0123456789abcdef")
        return String((0..<count).map { _ in digits[Int(next() & 15)] })
    }

    private func rotate(_ value: UInt64, _ amount: UInt64) -> UInt64 {
        (value << amount) | (value >> (64 - amount))
    }
}
