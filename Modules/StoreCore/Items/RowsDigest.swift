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
    package static let hashBytes = 16

    /// How many item rows there are.
    private(set) var count: Int64
    /// The XOR of every row's hash.
    private(set) var accumulator: [UInt8]

    /// The digest of no rows.
    package static let empty = RowsDigest(count: 0, accumulator: Array(repeating: 0, count: hashBytes))

    private init(count: Int64, accumulator: [UInt8]) {
        self.count = count
        self.accumulator = accumulator
    }

    /// Decodes a stored digest; `nil` when it is malformed.
    package init?(encoded: [UInt8]) {
        guard encoded.count == 8 + Self.hashBytes else { return nil }
        self.init(
            count: Int64(bitPattern: readBigEndian(encoded[0..<8])), accumulator: Array(encoded[8...]))
    }

    /// The stored form: the count (8 bytes, big-endian), then the accumulator.
    package var encoded: [UInt8] { bigEndian(UInt64(bitPattern: count)) + accumulator }

    /// Counts a row in.
    package mutating func insert(_ hash: [UInt8]) {
        count += 1
        toggle(hash)
    }

    /// Counts a row out.
    package mutating func remove(_ hash: [UInt8]) {
        count -= 1
        toggle(hash)
    }

    /// Counts in every row another digest counts (the digests of disjoint sets of rows combine into the
    /// digest of their union).
    package mutating func merge(_ other: RowsDigest) {
        count += other.count
        toggle(other.accumulator)
    }

    private mutating func toggle(_ hash: [UInt8]) {
        for index in 0..<Self.hashBytes { accumulator[index] ^= hash[index] }
    }

    /// The keyed hash of one row's plaintext columns.
    package static func rowHash(
        id: Int64, classCode: Int64, group: BlindIndex, unique: BlindIndex, primary: BlindIndex, version: Int64? = nil,
        keys: ItemKeys
    ) throws(SecureStoreError) -> [UInt8] {
        // A row with a version hashes under its own tag, its version last.
        var message: [UInt8] = [version == nil ? 0x05 : 0x06]
        message.reserveCapacity(1 + 16 + 3 * (1 + BlindIndex.capacity))
        message += bigEndian(UInt64(bitPattern: id))
        message += bigEndian(UInt64(bitPattern: classCode))
        for cell in [group, unique, primary] {
            message.append(UInt8(cell.count))
            cell.withUnsafeBytes { message.append(contentsOf: $0) }
        }
        if let version { message += bigEndian(UInt64(bitPattern: version)) }
        return try Sodium.keyedHash(message, key: keys.index, length: hashBytes)
    }

    /// The keyed hash of one access group's index, for the digest of the set of groups that have a
    /// digest row of their own (a backend that keeps one per group).
    package static func groupHash(_ group: BlindIndex, keys: ItemKeys) throws(SecureStoreError) -> [UInt8] {
        var message: [UInt8] = [0x07, UInt8(group.count)]
        group.withUnsafeBytes { message.append(contentsOf: $0) }
        return try Sodium.keyedHash(message, key: keys.index, length: hashBytes)
    }

    /// The integrity failure for rows that no longer match their digest.
    package static let mismatch = SecureStoreError.integrityFailure(
        "the item rows do not match their digest (an item was removed, or had its class or indexes changed, "
            + "outside the store)")
}
