import Data

/// A keyed BLAKE2b digest of every item row's plaintext columns (id, class and indexes), in row order,
/// kept in the `rows_digest` table and rewritten by every write transaction.
///
/// Each ciphertext is bound to its own row, but a row can be damaged or edited so that no lookup
/// reaches it any more (a flipped class code, index cell or SQLite index page; a deleted row), and a
/// lookup would then answer "not found" for an item that exists. An answer that claims something is
/// absent (not found, or a complete list) is given only when the rows still match this digest, and
/// every write first checks it, so such damage is an integrity failure, never a missing item.
enum RowsDigest {
    /// The table that holds the digest (one row), created by the first open of this version.
    static let schema = """
        CREATE TABLE IF NOT EXISTS rows_digest (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            value BLOB NOT NULL
        )
        """

    /// The digest of `entries` (in row order) under the store's index key.
    static func compute(_ entries: [ItemIndexEntry], keys: ItemKeys) throws(SecureStoreError) -> [UInt8] {
        var message: [UInt8] = Array("HTK-rows".utf8) + keys.storeID + bigEndian(UInt64(entries.count))
        message.reserveCapacity(message.count + entries.count * 64)
        for entry in entries {
            message += bigEndian(UInt64(bitPattern: entry.id))
            message += bigEndian(UInt64(bitPattern: entry.classCode))
            for cell in [entry.group, entry.unique, entry.primary] {
                message += bigEndian(UInt64(cell.count))
                message += cell
            }
        }
        return try Sodium.keyedHash(message, key: keys.index, length: 32)
    }

    /// The message of an integrity failure the digest found.
    static let mismatch = SecureStoreError.integrityFailure(
        "the item rows do not match their digest (an item was removed, added, or had its indexes changed "
            + "outside the store)")
}
