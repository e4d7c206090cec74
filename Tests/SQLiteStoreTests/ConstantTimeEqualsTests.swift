import StoreCore
import Testing

/// StoreCore's one comparison of keyed values, `Sodium.constantTimeEquals` (libsodium's `sodium_memcmp`),
/// and the keyed types that compare through it: blind indexes, row hashes and rows digests. Equal bytes
/// are equal; a difference anywhere (the first byte, the last) or in length is not.
@Suite struct ConstantTimeEqualsTests {
    private let value: [UInt8] = Array(0..<32)

    /// `value` with its byte at `position` flipped in one bit.
    private func flipped(_ value: [UInt8], at position: Int) -> [UInt8] {
        var copy = value
        copy[position] ^= 0x01
        return copy
    }

    private func index(_ bytes: [UInt8]) -> BlindIndex {
        bytes.withUnsafeBytes { BlindIndex(copying: $0, expectedCount: bytes.count)! }
    }

    @Test func equalBytesAreEqual() {
        #expect(Sodium.constantTimeEquals(value, Array(value)))
        #expect(Sodium.constantTimeEquals([], []))
        #expect(Sodium.constantTimeEquals([0x2A], [0x2A]))
    }

    @Test func aDifferenceInTheFirstOrTheLastByteIsSeen() {
        #expect(!Sodium.constantTimeEquals(value, flipped(value, at: 0)))
        #expect(!Sodium.constantTimeEquals(value, flipped(value, at: value.count - 1)))
        #expect(!Sodium.constantTimeEquals(flipped(value, at: value.count - 1), value))
        #expect(!Sodium.constantTimeEquals([0x00], [0x80]))
    }

    @Test func differentLengthsAreNeverEqual() {
        #expect(!Sodium.constantTimeEquals(value, Array(value.dropLast())))
        #expect(!Sodium.constantTimeEquals(Array(value.dropLast()), value))
        #expect(!Sodium.constantTimeEquals(value, value + [0]))
        #expect(!Sodium.constantTimeEquals([], [0]))
        #expect(!Sodium.constantTimeEquals([0], []))
    }

    @Test func blindIndexesCompareEveryByteAndTheirLength() {
        let bytes = Array(value.prefix(BlindIndex.capacity))
        #expect(index(bytes) == index(bytes))
        #expect(index(bytes) != index(flipped(bytes, at: 0)))
        #expect(index(bytes) != index(flipped(bytes, at: bytes.count - 1)))
        // A shorter index is not equal to a longer one that starts with it (or with its zero tail).
        #expect(index(Array(bytes.prefix(8))) != index(bytes))
        #expect(index([0, 0, 0, 0, 0, 0, 0, 0]) != index(Array(repeating: 0, count: BlindIndex.capacity)))
        #expect(index([]) == index([]))
        // The hash agrees with equality, so dictionaries keyed by an index still find it.
        let keyed = [index(bytes): 1]
        #expect(keyed[index(bytes)] == 1)
        #expect(keyed[index(flipped(bytes, at: bytes.count - 1))] == nil)
    }

    @Test func rowHashesAndRowsDigestsCompareEveryByte() throws {
        let bytes = Array(value.prefix(RowHash.byteCount))
        let hash = try #require(RowHash(bytes[...]))
        #expect(hash == RowHash(bytes[...]))
        #expect(hash != RowHash(flipped(bytes, at: 0)[...]))
        #expect(hash != RowHash(flipped(bytes, at: bytes.count - 1)[...]))
        var digest = RowsDigest.empty
        digest.insert(hash)
        var same = RowsDigest.empty
        same.insert(try #require(RowHash(bytes[...])))
        #expect(digest == same)
        var other = RowsDigest.empty
        other.insert(try #require(RowHash(flipped(bytes, at: bytes.count - 1)[...])))
        #expect(digest != other)
        // Same accumulator, another count: not the same rows.
        var counted = digest
        counted.insert(RowHash())
        #expect(counted != digest)
    }
}
