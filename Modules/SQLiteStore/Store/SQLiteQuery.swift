import StoreCore

/// The statements of the store's hot path, each prepared once per column choice by
/// ``SQLiteItemStorage`` and kept.
enum SQLiteQuery: Int, CaseIterable {
    case byUnique, byPrimary, byClassAndGroup, all, lastID, insert, insertIfNewest, updateSealed, updateAll
    case delete, deleteExactly, idsExactly
    case loadDigest, storeDigest, dataVersion, indexEntries, countUnique, countUniqueNotIndexed, countPrimary
    case countPrimaryNotIndexed

    /// The SQL, selecting (for the four reads) only the ciphertexts in `columns`: the others are NULL,
    /// so that each column keeps its position and SQLite copies no blob that is not used.
    func sql(columns wanted: RowColumns) -> String {
        let columns =
            "id, class, grp, uniq, prim, "
            + "\(wanted.contains(.attributes) ? "attrs" : "NULL"), \(wanted.contains(.data) ? "data" : "NULL")"
        return switch self {
        // The unique index is (prim, uniq): the primary index is part of every unique key.
        case .byUnique: "SELECT \(columns) FROM items WHERE prim = ? AND uniq = ?"
        case .byPrimary: "SELECT \(columns) FROM items WHERE prim = ? ORDER BY id"
        case .byClassAndGroup: "SELECT \(columns) FROM items WHERE class = ? AND grp = ? ORDER BY id"
        case .all: "SELECT \(columns) FROM items ORDER BY id"
        case .lastID: "SELECT max(id) FROM items"  // NULL, read as 0, when there are no rows
        case .insert: "INSERT INTO items (id, class, grp, uniq, prim, attrs, data) VALUES (?, ?, ?, ?, ?, ?, ?)"
        // Inserts under row id ?1 only if it is past every row id: otherwise the class is NULL and
        // the NOT NULL constraint refuses the row (an id already taken, or one below the newest).
        case .insertIfNewest:
            "INSERT INTO items (id, class, grp, uniq, prim, attrs, data) VALUES "
                + "(?1, CASE WHEN (SELECT ifnull(max(id), 0) FROM items) < ?1 THEN ?2 END, ?3, ?4, ?5, ?6, ?7)"
        case .updateSealed: "UPDATE items SET attrs = ?, data = ? WHERE id = ?"
        case .updateAll: "UPDATE items SET grp = ?, uniq = ?, prim = ?, attrs = ?, data = ? WHERE id = ?"
        case .delete: "DELETE FROM items WHERE id = ?"
        // The index finds the row id (one at most: the index is unique); the row's own cells are then
        // compared from the table, found by that id. A loop that reads through an index takes the
        // index's copy of its columns (SQLite substitutes it), so a damaged index entry pointing at
        // another item's row would otherwise delete that item. (`+` keeps the outer loop off the index.)
        case .deleteExactly:
            "DELETE FROM items WHERE id = (SELECT id FROM items WHERE prim = ?1 AND uniq = ?2) "
                + "AND +prim = ?1 AND +uniq = ?2 AND class = ?3 AND grp = ?4 RETURNING id"
        // The id alone, or with ciphertexts wanted the whole row (for a rows digest that counts them,
        // which must count the deleted row out).
        case .idsExactly:
            "SELECT \(wanted.isEmpty ? "id" : columns) FROM items WHERE id = (SELECT id FROM items WHERE prim = ?1 AND uniq = ?2) "
                + "AND +prim = ?1 AND +uniq = ?2 AND class = ?3 AND grp = ?4"
        case .loadDigest: "SELECT value FROM rows_digest WHERE id = 1"
        case .storeDigest: "UPDATE rows_digest SET value = ? WHERE id = 1"
        case .dataVersion: "PRAGMA data_version"
        case .indexEntries: "SELECT id, class, grp, uniq, prim FROM items"
        case .countUnique: "SELECT count(*) FROM items WHERE prim = ? AND uniq = ?"
        case .countUniqueNotIndexed: "SELECT count(*) FROM items NOT INDEXED WHERE prim = ? AND uniq = ?"
        case .countPrimary: "SELECT count(*) FROM items WHERE prim = ?"
        case .countPrimaryNotIndexed: "SELECT count(*) FROM items NOT INDEXED WHERE prim = ?"
        }
    }
}
