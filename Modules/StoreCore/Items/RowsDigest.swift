package import Data

/// A keyed digest of the item rows' plaintext columns, kept in the `rows_digest` table: the number of
/// rows and the XOR of a keyed BLAKE2b hash of each row's id, class and index cells.
///
/// Each ciphertext is authenticated with its own row, but damage can take a row out of every lookup (a
/// flipped class code or index cell, a deleted row), and a lookup would then answer "not found" for an
/// item that exists. An answer that claims absence, or a complete list, is given only when the rows
/// still match this digest. The digest is kept up to date incrementally: each insert, delete or index
/// change XORs one row hash in or out, so a write costs two hashes, not a pass over the table; a full
/// pass is needed only to check it, once per change made by another connection.
package struct RowsDigest: Equatable {
    /// The table that holds the digest (one row).
    package static let schema = """
        CREATE TABLE IF NOT EXISTS rows_digest (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            value BLOB NOT NULL
        )
        """

    /// The size of one row hash and of the accumulator.
    package static let hashBytes = RowHash.byteCount
    /// The size of the plain form (``encoded``): the count, then the accumulator.
    package static let encodedBytes = 8 + hashBytes

    /// How many item rows there are.
    private(set) var count: Int64
    /// The XOR of every row's hash.
    private(set) var accumulator: RowHash

    /// The digest of no rows.
    package static let empty = RowsDigest(count: 0, accumulator: RowHash())

    private init(count: Int64, accumulator: RowHash) {
        self.count = count
        self.accumulator = accumulator
    }

    /// Decodes a stored digest; `nil` when it is malformed.
    package init?(encoded: [UInt8]) {
        guard encoded.count == Self.encodedBytes, let accumulator = RowHash(encoded[8...]) else { return nil }
        self.init(count: Int64(bitPattern: readBigEndian(encoded[0..<8])), accumulator: accumulator)
    }

    /// The stored form: the count (8 bytes, big-endian), then the accumulator.
    package var encoded: [UInt8] {
        var encoded = [UInt8](repeating: 0, count: Self.encodedBytes)
        let count = UInt64(bitPattern: count)
        for index in 0..<8 { encoded[index] = UInt8(truncatingIfNeeded: count >> (56 - 8 * index)) }
        accumulator.withUnsafeBytes { bytes in
            for index in 0..<Self.hashBytes { encoded[8 + index] = bytes[index] }
        }
        return encoded
    }

    /// Whether both count the same rows: the accumulator, a keyed value, compared in constant time
    /// (``RowHash``'s `==`), then the count, which is public (the table shows its rows).
    package static func == (lhs: RowsDigest, rhs: RowsDigest) -> Bool {
        lhs.accumulator == rhs.accumulator && lhs.count == rhs.count
    }

    /// Counts a row in.
    package mutating func insert(_ hash: RowHash) {
        count += 1
        accumulator.formXor(hash)
    }

    /// Counts a row out.
    package mutating func remove(_ hash: RowHash) {
        count -= 1
        accumulator.formXor(hash)
    }

    /// Counts in every row another digest counts (the digests of disjoint sets of rows combine into the
    /// digest of their union).
    package mutating func merge(_ other: RowsDigest) {
        count += other.count
        accumulator.formXor(other.accumulator)
    }

    /// The longest message ``rowHash(id:classCode:group:unique:primary:version:keys:)`` hashes: a tag,
    /// the id and class, three cells each with its length, and a version.
    private static let longestRowMessage = 1 + 16 + 3 * (1 + BlindIndex.capacity) + 8

    /// The keyed hash of one row's plaintext columns. The message is built on the stack: this runs for
    /// every row a write adds or removes, and for every row of a full check.
    package static func rowHash(
        id: Int64, classCode: Int64, group: BlindIndex, unique: BlindIndex, primary: BlindIndex, version: Int64? = nil,
        keys: ItemKeys
    ) throws(SecureStoreError) -> RowHash {
        var hash = RowHash()
        var failure: SecureStoreError?
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: longestRowMessage) { message in
            // A row with a version hashes under its own tag, its version last.
            message[0] = version == nil ? 0x05 : 0x06
            var length = appendBigEndian(id, to: message, at: 1)
            length = appendBigEndian(classCode, to: message, at: length)
            length = append(group, to: message, at: length)
            length = append(unique, to: message, at: length)
            length = append(primary, to: message, at: length)
            if let version { length = appendBigEndian(version, to: message, at: length) }
            let written = UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: message[..<length]))
            failure = keyedHash(written, keys: keys, into: &hash)
        }
        if let failure { throw failure }
        return hash
    }

    /// Hashes `message` under the index key into `hash`; the failure, if any.
    private static func keyedHash(
        _ message: UnsafeRawBufferPointer, keys: ItemKeys, into hash: inout RowHash
    ) -> SecureStoreError? {
        hash.withUnsafeMutableBytes { output in
            do throws(SecureStoreError) {
                try Sodium.keyedHash(message, key: keys.index, into: output)
                return nil
            } catch {
                return error
            }
        }
    }

    /// Writes a cell's length (one byte), then its bytes, at `offset` of `buffer`; returns the offset
    /// after them.
    private static func append(
        _ cell: BlindIndex, to buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int
    ) -> Int {
        buffer[offset] = UInt8(cell.count)
        let rest = UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[(offset + 1)...]))
        cell.withUnsafeBytes { rest.copyMemory(from: $0) }
        return offset + 1 + cell.count
    }

    /// Writes `value`'s 8 bytes, big-endian, at `offset` of `buffer`; returns the offset after them.
    private static func appendBigEndian(
        _ value: Int64, to buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int
    ) -> Int {
        let bits = UInt64(bitPattern: value)
        for index in 0..<8 { buffer[offset + index] = UInt8(truncatingIfNeeded: bits >> (56 - 8 * index)) }
        return offset + 8
    }

    /// The keyed hash of one access group's index, for the digest of the set of groups that have a
    /// digest row of their own (a backend that keeps one per group).
    package static func groupHash(_ group: BlindIndex, keys: ItemKeys) throws(SecureStoreError) -> RowHash {
        let message: [UInt8] = [0x07, UInt8(group.count)] + group.bytes
        var hash = RowHash()
        let failure = message.withUnsafeBytes { keyedHash($0, keys: keys, into: &hash) }
        if let failure { throw failure }
        return hash
    }

    /// The integrity failure for rows that no longer match their digest.
    package static let mismatch = SecureStoreError.integrityFailure(
        "the item rows do not match their digest (an item was removed, or had its class or indexes changed, "
            + "outside the store)")
}
