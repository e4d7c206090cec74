import Data
import StoreCore

/// The rows this handle's own writes left (index cells, ciphertexts, version), by group: a write
/// under an assumed lock of a group (see ``assumeLock(_:)``) reads an item's row from here rather than
/// from the server, so that an update or a delete by unique key is one round trip, like a put.
///
/// A cached row is the row in the database for as long as the group's digest row is in the state this
/// handle's last commit left: every change to a row of the group by anyone else moves it (the row
/// trigger), and the assumed lock checks that state in the same statement as the write, which is done
/// only if it holds. So the cache is kept only for rows written by the store's own writes whose
/// commit left a known state, and a group's rows are dropped whenever another connection's change to
/// the group is seen, an assumed lock fails, or a transaction writes a row it did not read.
extension PostgreSQLItemStorage {
    /// A row's unique key: its primary and unique-key indexes.
    struct RowKey: Hashable {
        let primary: BlindIndex
        let unique: BlindIndex
    }

    /// More cached rows than this, and the cache starts again empty.
    static let rowCacheLimit = 4096

    /// The cached row `selection` names, when the open transaction assumes the lock of its group.
    func cachedRow(_ selection: RowSelection) -> ItemRow? {
        guard let speculation, case .unique(let primary, let unique) = selection,
            let row = rowCache[speculation.group]?[RowKey(primary: primary, unique: unique)]
        else { return nil }
        transactionRows[row.id] = row
        return row
    }

    /// Notes the rows a statement read, so that a write of one of them can be cached.
    func noteRowsRead(_ rows: [ItemRow]) {
        for row in rows { transactionRows[row.id] = row }
    }

    /// Notes that the open transaction wrote `row` (`nil`: removed `key`) in `group`.
    func noteRowWritten(_ group: BlindIndex, _ key: RowKey, _ row: ItemRow?) {
        pendingRowChanges.append((group, key, row))
    }

    /// Notes that the open transaction wrote the row `id` anew, or removed it (`newRow` nil).
    func noteRowRewritten(_ id: Int64, as newRow: ItemRow?) {
        guard let old = transactionRows[id] else {
            rowCacheInvalid = true
            return
        }
        noteRowWritten(old.group, RowKey(primary: old.primary, unique: old.unique), nil)
        if let newRow { noteRowWritten(newRow.group, RowKey(primary: newRow.primary, unique: newRow.unique), newRow) }
    }

    /// After a commit: keeps what a write of the store's own wrote to the groups whose state it knows
    /// (`knownGroups`); drops the cached rows of every other group it wrote.
    func applyRowChanges(knownGroups: Set<BlindIndex>) {
        guard !rowCacheInvalid else {
            rowCache = [:]
            return
        }
        for (group, key, row) in pendingRowChanges {
            guard speculationAllowed, knownGroups.contains(group) else {
                rowCache[group] = nil
                continue
            }
            rowCache[group, default: [:]][key] = row
        }
        if rowCache.values.reduce(0, { $0 + $1.count }) > Self.rowCacheLimit { rowCache = [:] }
    }
}
