import StoreCore

/// Everything one in-memory store holds: its rows by id, the encoded rows digest and the header
/// record. A value: a transaction works on a copy and a savepoint is one more copy (copy on write),
/// so rolling back is dropping the copy.
struct MemoryContents {
    /// The item rows by row id.
    var rows: [Int64: ItemRow] = [:]
    /// The encoded rows digest, or `nil` before the store is created.
    var rowsDigest: [UInt8]?
    /// The header record, or `nil` before the store is created.
    var header: HeaderRecord?

    /// The rows in row-id order, as every read of the port returns them.
    var rowsInOrder: [ItemRow] { rows.keys.sorted().map { rows[$0]! } }

    /// Whether another row than `id` already has this (primary, unique) pair: the one constraint the
    /// port asks a backend to enforce.
    func uniqueKeyTaken(by row: ItemRow) -> Bool {
        rows.values.contains { $0.id != row.id && $0.primary == row.primary && $0.unique == row.unique }
    }
}
