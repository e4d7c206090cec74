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

    /// The second copy of the header record (``SQLiteHeaderCopies``): a table of its own, so a b-tree
    /// root page of its own, made after the others so that it does not sit beside `meta`, and the
    /// triggers that write it in the same statement as every insert or update of `meta`, by any build
    /// of Hardtack (one from before the copy still writes only `meta`, and its change of key reaches
    /// the copy through them). Added to a store made before it by its next open that can write.
    static let headerCopy = """
        CREATE TABLE IF NOT EXISTS meta_copy (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            header BLOB NOT NULL,
            checksum BLOB NOT NULL,
            wrapped_key BLOB NOT NULL
        );
        CREATE TRIGGER IF NOT EXISTS meta_copy_on_insert AFTER INSERT ON meta BEGIN
            INSERT OR REPLACE INTO meta_copy (id, header, checksum, wrapped_key)
                VALUES (NEW.id, NEW.header, NEW.checksum, NEW.wrapped_key);
        END;
        CREATE TRIGGER IF NOT EXISTS meta_copy_on_update AFTER UPDATE ON meta BEGIN
            INSERT OR REPLACE INTO meta_copy (id, header, checksum, wrapped_key)
                VALUES (NEW.id, NEW.header, NEW.checksum, NEW.wrapped_key);
        END;
        """

    /// Gives a store made before the header's second copy its copy, in one write transaction after
    /// the store was unlocked (a wrong key leaves the file as it was). An upgrade that cannot run now
    /// (another process holds the lock past the busy timeout, the disk is full) is not an error: the
    /// store works as before, with one copy, and the next open tries again.
    static func addHeaderCopy(_ connection: SQLiteConnection) throws(SecureStoreError) {
        do throws(SecureStoreError) {
            try connection.beginImmediate()
            do throws(SecureStoreError) {
                try connection.execute(headerCopy)
                try connection.execute(
                    "INSERT OR REPLACE INTO meta_copy (id, header, checksum, wrapped_key) "
                        + "SELECT id, header, checksum, wrapped_key FROM meta WHERE id = 1")
                try connection.commit()
            } catch {
                try? connection.rollback()
                throw error
            }
        } catch .storage {
            return
        }
    }

    /// Creates the tables, the header record (both copies) and the rows digest in the open write
    /// transaction; `emptyDigest` is the stored form of the digest of no rows, under the new store's keys.
    static func create(_ record: HeaderRecord, emptyDigest: [UInt8], _ connection: SQLiteConnection)
        throws(SecureStoreError)
    {
        try connection.execute(tables)
        try connection.execute(RowsDigest.schema)
        try connection.execute(headerCopy)
        // The trigger writes the copy.
        let statement = try connection.prepared("INSERT INTO meta (id, header, checksum, wrapped_key) VALUES (1, ?, ?, ?)")
        statement.bind(record.header, at: 1)
        statement.bind(record.checksum, at: 2)
        statement.bind(record.wrappedKey, at: 3)
        try statement.run()
        let digest = try connection.prepared("INSERT INTO rows_digest (id, value) VALUES (1, ?)")
        digest.bind(emptyDigest, at: 1)
        try digest.run()
    }
}
