package import Data

/// A keyed digest of the item rows, kept in the `rows_digest` table: the number of rows and the XOR of
/// a keyed BLAKE2b hash of each row's id, class and index cells, and what commits to its content: its
/// version where rows carry one (PostgreSQL), its ciphertexts' bytes in a store of format 4 or later
/// where they do not (SQLite, memory), nothing before format 4 there.
///
/// Each ciphertext is authenticated with its own row, but damage can take a row out of every lookup (a
/// flipped class code or index cell, a deleted row), and a lookup would then answer "not found" for an
/// item that exists. An answer that claims absence, or a complete list, is given only when the rows
/// still match this digest. The digest is kept up to date incrementally: each insert, delete or change
/// of a row XORs one row hash out and one in, so a write costs two hashes, not a pass over the table; a full
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

    /// The longest message ``rowHash(id:classCode:group:unique:primary:version:ciphertexts:keys:)``
    /// hashes before any ciphertext: a tag, the id and class, three cells each with its length, and a
    /// version (8 bytes) or the two ciphertexts' lengths (16).
    private static let longestRowMessage = 1 + 16 + 3 * (1 + BlindIndex.capacity) + 16

    /// The keyed hash of one row: its plaintext columns, and its version (a backend whose rows carry
    /// one) or, in a store of format 4 or later whose rows carry none, its ciphertexts' bytes, so that
    /// the digest commits to each row's current content and an older ciphertext of one row put back no
    /// longer matches. The message is built on the stack (the heap for a large secret): this runs for
    /// every row a write adds or removes, and for every row of a full check.
    package static func rowHash(
        id: Int64, classCode: Int64, group: BlindIndex, unique: BlindIndex, primary: BlindIndex, version: Int64? = nil,
        ciphertexts: (attributes: [UInt8], data: [UInt8])? = nil, keys: ItemKeys
    ) throws(SecureStoreError) -> RowHash {
        var hash = RowHash()
        var failure: SecureStoreError?
        let sealedBytes = ciphertexts.map { $0.attributes.count + $0.data.count } ?? 0
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: longestRowMessage + sealedBytes) { message in
            // A row with a version, or with its ciphertexts, hashes under its own tag.
            message[0] = version != nil ? 0x06 : ciphertexts != nil ? 0x08 : 0x05
            var length = appendBigEndian(id, to: message, at: 1)
            length = appendBigEndian(classCode, to: message, at: length)
            length = append(group, to: message, at: length)
            length = append(unique, to: message, at: length)
            length = append(primary, to: message, at: length)
            if let version {
                length = appendBigEndian(version, to: message, at: length)
            } else if let ciphertexts {
                // Each length first, so that no two pairs of ciphertexts make one message.
                length = appendBigEndian(Int64(ciphertexts.attributes.count), to: message, at: length)
                length = appendBigEndian(Int64(ciphertexts.data.count), to: message, at: length)
                length = append(ciphertexts.attributes, to: message, at: length)
                length = append(ciphertexts.data, to: message, at: length)
            }
            let written = UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: message[..<length]))
            failure = keyedHash(written, keys: keys, into: &hash)
        }
        if let failure { throw failure }
        return hash
    }

    /// The keyed hash of `row` as the store's format counts it: with its ciphertexts where the format
    /// commits to them (``ItemKeys/digestsCiphertexts``) and the row carries no version.
    package static func rowHash(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) -> RowHash {
        try rowHash(
            id: row.id, classCode: Int64(row.itemClass.rawValue), group: row.group, unique: row.unique,
            primary: row.primary, version: row.version,
            ciphertexts: keys.digestsCiphertexts && row.version == nil ? (row.sealedAttributes, row.sealedData) : nil,
            keys: keys)
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

    /// Writes `bytes` at `offset` of `buffer`; returns the offset after them.
    private static func append(
        _ bytes: [UInt8], to buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int
    ) -> Int {
        guard !bytes.isEmpty else { return offset }
        let rest = UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[offset...]))
        bytes.withUnsafeBytes { rest.copyMemory(from: $0) }
        return offset + bytes.count
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
        "the item rows do not match their digest (an item was removed, put back as it was before, or had its "
            + "class or indexes changed, outside the store)")
}
