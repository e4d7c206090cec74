import Data
import StoreCore

/// The check that a store file's schema is one the store made, object for object and byte for byte.
extension SQLiteSchema {
    /// The tables as the first builds made them (up to commit aa6c1a0): AUTOINCREMENT ids (so also
    /// SQLite's `sqlite_sequence`), a unique `uniq`, and a separate index on `prim`. Such stores are
    /// never rewritten, so they keep this schema for life. The text is those builds' own, to the byte.
    static let firstTables = """
        CREATE TABLE IF NOT EXISTS meta (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            header BLOB NOT NULL,
            checksum BLOB NOT NULL,
            wrapped_key BLOB NOT NULL
        );
        CREATE TABLE IF NOT EXISTS items (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            class INTEGER NOT NULL,
            grp BLOB NOT NULL,
            uniq BLOB NOT NULL UNIQUE,
            prim BLOB NOT NULL,
            attrs BLOB NOT NULL,
            data BLOB NOT NULL
        );
        CREATE INDEX IF NOT EXISTS items_prim ON items (prim);
        """

    /// Every schema a build of Hardtack leaves in a store file, as SQLite stores it: the tables of the
    /// first builds (``firstTables``) or today's (``tables``), each with or without the rows digest
    /// (added by the first open of a build that keeps one) and with or without the header's second
    /// copy and its triggers (``headerCopy``, added likewise, all three in one transaction).
    ///
    /// Each is made by running those very statements in an empty database in memory and reading back
    /// `sqlite_master`, so the text compared is exactly what SQLite would have stored in the file,
    /// normalised only as SQLite normalises it. Made once per process.
    static func knownSchemas() throws(SecureStoreError) -> [Set<SQLiteSchemaObject>] {
        try knownSchemasOnce.get()
    }

    private static let knownSchemasOnce = Result { () throws(SecureStoreError) -> [Set<SQLiteSchemaObject>] in
        var schemas: [Set<SQLiteSchemaObject>] = []
        for tables in [firstTables, tables] {
            for withDigest in [false, true] {
                for withCopy in [false, true] {
                    let reference = try SQLiteConnection(path: ":memory:")
                    try reference.execute(tables)
                    if withDigest { try reference.execute(RowsDigest.schema) }
                    if withCopy { try reference.execute(headerCopy) }
                    schemas.append(Set(try objects(reference)))
                }
            }
        }
        return schemas
    }

    /// Every object of the database's schema, in name order.
    static func objects(_ connection: SQLiteConnection) throws(SecureStoreError) -> [SQLiteSchemaObject] {
        let statement = try connection.prepared("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name, type")
        defer { statement.reset() }
        var objects: [SQLiteSchemaObject] = []
        while try statement.step() {
            objects.append(
                SQLiteSchemaObject(
                    type: statement.wholeText(at: 0) ?? "", name: statement.wholeText(at: 1) ?? "",
                    table: statement.wholeText(at: 2) ?? "", sql: statement.wholeText(at: 3)))
        }
        return objects
    }

    /// Refuses a file whose schema is not, object for object and byte for byte of each object's SQL,
    /// one that a build of Hardtack made (``knownSchemas()``). Code put there by someone who could
    /// write the file (a trigger or a view of their own, or the body of one of the store's own
    /// triggers replaced under its name) would run on the store's connection, inside its transactions;
    /// a table or an index changed would change what the store's statements do. Tamper evidence would
    /// catch most of that, later; the store does not let it run at all. Runs before anything in the
    /// file is changed (upgrades included), so a refused file is left as it was.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` naming the first object (by name) that no
    ///   build made, or the object of the store's that is missing; never any SQL of the file's.
    static func refuseUnknownSchema(_ connection: SQLiteConnection) throws(SecureStoreError) {
        let found = try objects(connection)
        let schemas = try knownSchemas()
        let foundSet = Set(found)
        if schemas.contains(foundSet) { return }
        let made = schemas.reduce(into: Set<SQLiteSchemaObject>()) { $0.formUnion($1) }
        let madeNames = Set(made.map(\.name))
        // The schema nearest to the file's decides, among objects that some build makes, which is one
        // too many (say an index of the first builds' on today's table) and which is missing.
        let nearest = schemas.min { $0.symmetricDifference(foundSet).count < $1.symmetricDifference(foundSet).count }
        if let foreign = found.first(where: { !made.contains($0) || !(nearest?.contains($0) ?? false) }) {
            let differs = madeNames.contains(foreign.name) && !made.contains(foreign)
            throw .integrityFailure(
                "the store's file holds a \(foreign.shownType) the store did not make (\(foreign.shownName)"
                    + (differs ? ", under the name of one of the store's own but defined otherwise" : "")
                    + "): its schema was changed outside Hardtack")
        }
        let missing = (nearest ?? []).subtracting(foundSet).sorted { $0.name < $1.name }.first
        throw .integrityFailure(
            "the store's file lacks the \(missing?.shownType ?? "schema object") \(missing?.shownName ?? "") that the "
                + "store makes beside the others it holds: its schema was changed outside Hardtack")
    }
}
