/// One blind index cell (the access-group, unique-key or primary-attribute index of an item): at most
/// 16 bytes, held inline so that computing, reading and comparing one allocates nothing.
///
/// Equality is constant-time (``Sodium/constantTimeEquals(_:_:)-pointer``): the file stores an index as it
/// is, but a keyed value is compared without telling by its timing how much of a candidate matched.
package struct BlindIndex: Hashable {
    /// The largest index Hardtack computes.
    package static let capacity = 16

    @usableFromInline var words: (UInt64, UInt64) = (0, 0)
    /// The number of bytes.
    package let count: Int

    /// An index of `count` zero bytes, to be filled through ``withUnsafeMutableBytes(_:)``.
    @inlinable
    package init(count: Int) {
        precondition(count >= 0 && count <= Self.capacity)
        self.count = count
    }

    /// A copy of `bytes`, or `nil` when they are not exactly `expectedCount` bytes long (a cell
    /// edited outside the store).
    @inlinable
    package init?(copying bytes: UnsafeRawBufferPointer, expectedCount: Int) {
        guard bytes.count == expectedCount, expectedCount <= Self.capacity else { return nil }
        self.init(count: expectedCount)
        Swift.withUnsafeMutableBytes(of: &words) { raw in
            if expectedCount > 0 { raw.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: expectedCount) }
        }
    }

    /// The bytes, as an array (for code that is not on a hot path).
    @inlinable
    package var bytes: [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// Calls `body` with the bytes.
    @inlinable
    package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        Swift.withUnsafeBytes(of: words) { raw in body(UnsafeRawBufferPointer(rebasing: raw[0..<count])) }
    }

    /// Calls `body` with the writable bytes.
    @inlinable
    package mutating func withUnsafeMutableBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) -> Result) -> Result {
        let count = count
        return Swift.withUnsafeMutableBytes(of: &words) { raw in
            body(UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]))
        }
    }

    /// Whether both hold the same bytes, compared in constant time (the counts, public, first).
    @inlinable
    package static func == (lhs: BlindIndex, rhs: BlindIndex) -> Bool {
        lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in Sodium.constantTimeEquals(left, right) } }
    }

    /// Hashes the bytes (the unused tail is always zero).
    @inlinable
    package func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        hasher.combine(words.0)
        hasher.combine(words.1)
    }
}
