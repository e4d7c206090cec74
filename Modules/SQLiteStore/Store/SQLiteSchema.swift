import Data
import StoreCore

/// The store's tables in SQLite, and the reads of them that happen before an engine exists.
enum SQLiteSchema {
    /// The tables. Items have one index, unique on (prim, uniq): the primary attribute is part of every
    /// class's unique key, so two items with one unique index always share their primary index too, and
    /// the pair is exactly as unique as `uniq` alone; lookups by unique key name both, lookups by the
    /// primary attribute use the index's first column. One index means one b-tree page written per
    /// insert or delete instead of two. Row ids are chosen by the store (see `StoreEngine.insert`), so
    /// there is no AUTOINCREMENT counter page to write either. Stores made with the earlier schema (a
    /// unique `uniq`, an `items_prim` index, AUTOINCREMENT) answer the same queries and keep working.
    static let tables = """
        CREATE TABLE IF NOT EXISTS meta (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            header BLOB NOT NULL,
            checksum BLOB NOT NULL,
            wrapped_key BLOB NOT NULL
        );
        CREATE TABLE IF NOT EXISTS items (
            id INTEGER PRIMARY KEY,
            class INTEGER NOT NULL,
            grp BLOB NOT NULL,
            uniq BLOB NOT NULL,
            prim BLOB NOT NULL,
            attrs BLOB NOT NULL,
            data BLOB NOT NULL,
            UNIQUE (prim, uniq)
        );
        """

    /// Whether the database has a table named `name`.
    static func hasTable(_ name: String, _ connection: SQLiteConnection) throws(SecureStoreError) -> Bool {
        try connection.scalarText("SELECT count(*) FROM sqlite_master WHERE name = '\(name)'") == "1"
    }

    /// Whether the database has no tables at all: a new file.
    static func isEmpty(_ connection: SQLiteConnection) throws(SecureStoreError) -> Bool {
        try connection.scalarText("SELECT count(*) FROM sqlite_master") == "0"
    }

    /// The `meta` row, or `nil` when there is none (a new file, or a damaged one).
    static func readHeaderRecord(_ connection: SQLiteConnection) throws(SecureStoreError) -> HeaderRecord? {
        guard try hasTable("meta", connection) else { return nil }
        let statement = try connection.prepared("SELECT header, checksum, wrapped_key FROM meta WHERE id = 1")
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return HeaderRecord(
            header: statement.bytes(at: 0), checksum: statement.bytes(at: 1), wrappedKey: statement.bytes(at: 2))
    }

    /// Creates the tables, the header record and an empty rows digest in the open write transaction.
    static func create(_ record: HeaderRecord, _ connection: SQLiteConnection) throws(SecureStoreError) {
        try connection.execute(tables)
        try connection.execute(RowsDigest.schema)
        let statement = try connection.prepared("INSERT INTO meta (id, header, checksum, wrapped_key) VALUES (1, ?, ?, ?)")
        statement.bind(record.header, at: 1)
        statement.bind(record.checksum, at: 2)
        statement.bind(record.wrappedKey, at: 3)
        try statement.run()
        let digest = try connection.prepared("INSERT INTO rows_digest (id, value) VALUES (1, ?)")
        digest.bind(RowsDigest.empty.encoded, at: 1)
        try digest.run()
    }
}
