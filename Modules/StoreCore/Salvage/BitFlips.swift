/// `bytes`, then (when `repairing`) every copy of it with one bit flipped, each made only when it is
/// reached: a header repair tries them one at a time instead of holding 8 copies per byte at once.
struct BitFlips: Sequence {
    /// The bytes as stored.
    let bytes: [UInt8]
    /// Whether the one-bit variants follow the bytes as stored.
    let repairing: Bool

    /// How many byte strings the sequence yields.
    var count: Int { repairing ? 1 + 8 * bytes.count : 1 }

    /// The variants in order: as stored, then byte 0 bit 0, byte 0 bit 1, ...
    struct Iterator: IteratorProtocol {
        let bytes: [UInt8]
        let end: Int
        var position = 0

        mutating func next() -> [UInt8]? {
            guard position < end else { return nil }
            defer { position += 1 }
            guard position > 0 else { return bytes }
            var variant = bytes
            variant[(position - 1) / 8] ^= UInt8(1) << UInt8((position - 1) % 8)
            return variant
        }
    }

    func makeIterator() -> Iterator { Iterator(bytes: bytes, end: count) }
}
