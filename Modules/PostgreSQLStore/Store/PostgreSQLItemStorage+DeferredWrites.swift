import Data
import StoreCore

/// Writes whose answers the store does not need (an insert, a ciphertext or row update, a delete by
/// id) wait, as SQL text, for the transaction's next statement or its `COMMIT`, and travel with it:
/// a put is then two round trips (the group's lock, then the row with the digest and the `COMMIT`).
///
/// Nothing is lost by waiting: every statement of the transaction sends them first, so every read
/// sees them, and a failure (a duplicate key) is reported by the statement they travel with, in the
/// same transaction, before anything commits: the server skips the rest of the text, the `COMMIT`
/// included, and the transaction rolls back as it would have. Inside a caller's transaction, a
/// failure surfaces at the savepoint's release, and the savepoint is rolled back as before.
extension PostgreSQLItemStorage {
    /// Queues `sql` (literals only: ids, class codes, versions, blind indexes and ciphertexts, never a
    /// plaintext) to travel with the transaction's next statement.
    func deferWrite(_ sql: String) throws(SecureStoreError) {
        try sendPendingBegin()
        deferredWrites += sql + "; "
    }

    /// Sends the queued writes now, on their own (before a statement that cannot carry them).
    func sendDeferredWrites() throws(SecureStoreError) {
        guard !deferredWrites.isEmpty else { return }
        let text = deferredWrites
        deferredWrites = ""
        do {
            try connection.execute(text)
        } catch {
            throw PostgreSQLFailure.storeError(error)
        }
    }

    /// An `INSERT` of `row` as literal SQL.
    func insertText(_ row: ItemRow) -> String {
        "INSERT INTO \(schema).items (id, class, grp, uniq, prim, attrs, data, ver) VALUES (\(row.id), "
            + "\(row.itemClass.rawValue), \(Self.literal(row.group.bytes)), \(Self.literal(row.unique.bytes)), "
            + "\(Self.literal(row.primary.bytes)), \(Self.literal(row.sealedAttributes)), "
            + "\(Self.literal(row.sealedData)), \(row.version ?? 1))"
    }
}
