import RawSQLite

/// The schema of the stores the first builds made (up to commit aa6c1a0): AUTOINCREMENT ids, a unique
/// `uniq`, a separate index on `prim`, in those builds' own words, to the byte.
enum FirstBuildSchema {
    /// The items table and its index, as the first builds ran them.
    static let items = """
        CREATE TABLE IF NOT EXISTS items (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            class INTEGER NOT NULL,
            grp BLOB NOT NULL,
            uniq BLOB NOT NULL UNIQUE,
            prim BLOB NOT NULL,
            attrs BLOB NOT NULL,
            data BLOB NOT NULL
        );
        """
    static let primaryIndex = "CREATE INDEX IF NOT EXISTS items_prim ON items (prim);"

    /// Gives the store file open in `raw` (no handle open on it) the first builds' items table, with
    /// the rows it holds; with `headerCopy` false, also takes away the header's second copy and its
    /// triggers, and with `rowsDigest` false the rows digest, as in a store no later build opened.
    static func apply(to raw: RawDatabase, headerCopy: Bool = true, rowsDigest: Bool = true) throws {
        try raw.query("BEGIN")
        try raw.query("CREATE TEMP TABLE saved AS SELECT * FROM main.items")
        try raw.query("DROP TABLE main.items")
        try raw.query(items)
        try raw.query(primaryIndex)
        try raw.query("INSERT INTO main.items SELECT * FROM temp.saved")
        try raw.query("DROP TABLE temp.saved")
        if !headerCopy {
            for sql in ["DROP TRIGGER meta_copy_on_insert", "DROP TRIGGER meta_copy_on_update", "DROP TABLE meta_copy"] {
                try raw.query(sql)
            }
        }
        if !rowsDigest { try raw.query("DROP TABLE rows_digest") }
        try raw.query("COMMIT")
    }
}
