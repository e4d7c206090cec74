/// A keyed 16-byte hash counted in a ``RowsDigest`` (one row's, or one access group's), or the XOR of
/// many: held inline, so computing, combining and copying one allocates nothing.
///
/// The bytes are the hash's bytes in order (the words only hold them), so the stored form of a digest
/// is the same whatever the machine's byte order.
package struct RowHash: Equatable {
    /// The number of bytes.
    package static let byteCount = 16

    /// The bytes, in memory order.
    private var words: (UInt64, UInt64) = (0, 0)

    /// Sixteen zero bytes: the XOR of no hashes.
    package init() {}

    /// A copy of exactly ``byteCount`` bytes, or `nil` when there are not that many.
    package init?(_ bytes: ArraySlice<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        bytes.withUnsafeBytes { source in
            Swift.withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: source) }
        }
    }

    /// XORs `other` in (and, done again, out).
    package mutating func formXor(_ other: RowHash) {
        words.0 ^= other.words.0
        words.1 ^= other.words.1
    }

    /// Calls `body` with the bytes.
    package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        Swift.withUnsafeBytes(of: words, body)
    }

    /// Calls `body` with the writable bytes (to compute a hash into).
    package mutating func withUnsafeMutableBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) -> Result) -> Result {
        Swift.withUnsafeMutableBytes(of: &words, body)
    }

    /// Whether both hold the same bytes, compared in constant time (``Sodium/constantTimeEquals(_:_:)-pointer``):
    /// a keyed hash, or the XOR of many, that a check compares with one it computed.
    package static func == (lhs: RowHash, rhs: RowHash) -> Bool {
        lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in Sodium.constantTimeEquals(left, right) } }
    }
}
