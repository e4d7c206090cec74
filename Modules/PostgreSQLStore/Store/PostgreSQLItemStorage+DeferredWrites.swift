import Data
import StoreCore

/// Writes whose answers the store does not need (an insert, a ciphertext or row update, a delete by
/// id) wait, as prepared statements with their parameters, for the transaction's next statement or
/// its `COMMIT`, and travel with it in one round trip (libpq's pipeline mode).
///
/// Nothing is lost by waiting: every statement of the transaction sends them first, so every read
/// sees them, and a failure (a duplicate key) is reported by the round trip they travel with, in the
/// same transaction, before anything commits: the server skips every later statement, the `COMMIT`
/// included, and the transaction rolls back as it would have. Inside a caller's transaction, a
/// failure surfaces at the savepoint's release, and the savepoint is rolled back as before.
extension PostgreSQLItemStorage {
    /// Queues a write (parameters: ids, class codes, versions, blind indexes and ciphertexts, never a
    /// plaintext) to travel with the transaction's next statement. `conditional` is the same write with
    /// the same parameters, done only when the CTE `locked` (the assumed lock) has a row.
    func deferWrite(_ sql: String, _ parameters: [PostgreSQLValue], conditional: String? = nil) throws(SecureStoreError) {
        if pendingBegin != nil && speculation == nil { try sendPendingBegin() }
        deferredWrites.append(.init(sql, parameters))
        deferredConditionals.append(conditional)
    }

    /// Sends the queued writes now, on their own (before a statement that cannot carry them).
    func sendDeferredWrites() throws(SecureStoreError) {
        guard !deferredWrites.isEmpty else { return }
        let writes = deferredWrites
        deferredWrites = []
        deferredConditionals = []
        do {
            _ = try connection.pipeline(writes)
        } catch {
            throw PostgreSQLFailure.storeError(error)
        }
    }

    /// The `INSERT` of a row, prepared.
    var insertSQL: String {
        "INSERT INTO \(schema).items (id, class, grp, uniq, prim, attrs, data, ver) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
    }

    /// The parameters of a row's `INSERT` (``insertSQL``).
    static func parameters(_ row: ItemRow) -> [PostgreSQLValue] {
        [
            .int64(row.id), .int32(Int32(row.itemClass.rawValue)), .bytes(row.group.bytes), .bytes(row.unique.bytes),
            .bytes(row.primary.bytes), .bytes(row.sealedAttributes), .bytes(row.sealedData), .int64(row.version ?? 1),
        ]
    }
}
