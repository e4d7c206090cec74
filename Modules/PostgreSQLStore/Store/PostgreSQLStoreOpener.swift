package import Data
import StoreCore

/// Opening a store on a PostgreSQL server: the connection and its session settings, the schema
/// (created on first use, its version checked), a new store's header, or the existing one's unlock.
package enum PostgreSQLStoreOpener {
    /// How long a statement waits for a lock (another writer's) before the store says it is busy.
    static let lockTimeout = "8s"  // under the connection's 10 s call timeout

    /// Connects, creates the store's schema and header on first use, and unlocks the store.
    static func open(
        location: PostgreSQLLocation, schema: String, keySource: KeySource, groups: [String], options: StoreOptions,
        connectionOptions: PostgreSQLConnectionOptions
    ) throws(SecureStoreError) -> (StoreEngine, PostgreSQLItemStorage) {
        guard PostgreSQLSchema.isPlainIdentifier(schema) else {
            throw .storage(
                StorageFailure(
                    backend: "PostgreSQL", kind: .misuse,
                    message: "the schema name must be lowercase letters, digits and underscores, starting with a letter"))
        }
        let connection: PostgreSQLConnection
        do {
            connection = try PostgreSQLConnection(to: location, options: connectionOptions)
            try configureSession(connection)
        } catch {
            throw PostgreSQLFailure.storeError(error)
        }
        try requireSupportedServer(version: connection.serverVersion)
        if options.rollbackAnchor != nil {
            throw .storage(
                .store(
                    "a rollback anchor is for SQLite stores; a PostgreSQL store's rows and digests live on the server",
                    kind: .misuse))
        }
        let storage = PostgreSQLItemStorage(connection: connection, schema: schema)
        if case let (stored, version)? = try existingHeader(storage) {
            let engine = try unlock(stored, storage: storage, keySource: keySource, groups: groups, options: options)
            if version < PostgreSQLSchema.currentVersion { try PostgreSQLSchemaUpgrade.run(engine: engine, storage: storage) }
            return (engine, storage)
        }
        // A new store: derive its keys first (Argon2id may take a second), then create it, unless
        // another instance created it meanwhile.
        // Format 4 changes nothing where rows carry versions: a new store takes format 3, which instances
        // not yet upgraded still open.
        var options = options
        options.newStoreFormat = min(options.newStoreFormat, StoreHeader.versionedRowsFormat)
        let (header, record, keys) = try KeyHierarchy.newStore(keySource: keySource, options: options)
        let emptyRegistry = try RowsDigest.empty.stored(.registry, keys: keys)
        let created = try inCreationTransaction(storage) { () throws(SecureStoreError) -> HeaderRecord? in
            if let theirs = try storage.readHeaderRecord() { return theirs }
            // Only an empty schema becomes a new store: a fresh master key would orphan existing items,
            // and a digest left behind means a store was here.
            let digests = try storage.run(
                "SELECT (SELECT count(*) FROM \(schema).group_registry) + (SELECT count(*) FROM \(schema).group_digests)")
            guard try storage.newestRowID() == 0, try translated({ () throws(PostgreSQLError) in try digests.int64(0, 0) }) == 0
            else { throw missingHeader }
            try storage.run(
                "INSERT INTO \(schema).meta (id, schema_version, header, checksum, wrapped_key) VALUES (1, $1, $2, $3, $4)",
                [.int32(PostgreSQLSchema.currentVersion), .bytes(record.header), .bytes(record.checksum), .bytes(record.wrappedKey)])
            try storage.run(
                "INSERT INTO \(schema).group_registry (id, value) VALUES (1, $1)", [.bytes(emptyRegistry)])
            return nil
        }
        if let theirs = created {
            return (try unlock(theirs, storage: storage, keySource: keySource, groups: groups, options: options), storage)
        }
        let engine = StoreEngine(storage: storage, options: options, groups: groups, header: header)
        try engine.install(keys)
        return (engine, storage)
    }

    /// The oldest server the store runs on: its writes call `pg_current_xact_id()`, new in 13.
    package static let oldestServerVersion = 130_000

    /// Refuses a server older than ``oldestServerVersion`` (`version` as libpq's `PQserverVersion` gives
    /// it: 150004 for 15.4) before anything is created on it, rather than failing every write later.
    package static func requireSupportedServer(version: Int) throws(SecureStoreError) {
        guard version < oldestServerVersion else { return }
        let major = version / 10_000
        throw .storage(
            StorageFailure(
                backend: "PostgreSQL", kind: .unsupportedServer,
                message: "the PostgreSQL server is version \(major >= 10 ? "\(major)" : "\(major).\(version / 100 % 100)"); "
                    + "Hardtack needs PostgreSQL 13 or later"))
    }

    /// Settings of every session of the store's: lock waits end in a "busy" error rather than at the
    /// call's timeout.
    static func configureSession(_ connection: PostgreSQLConnection) throws(PostgreSQLError) {
        try connection.execute("SET lock_timeout = '\(lockTimeout)'")
    }

    /// The stored header of an existing store at a schema version this code reads, or `nil` when the
    /// server has no store yet.
    private static func existingHeader(_ storage: PostgreSQLItemStorage) throws(SecureStoreError)
        -> (HeaderRecord?, Int32)?
    {
        let schema = storage.schema
        let exists = try storage.run(PostgreSQLSchema.metaExists(schema))
        guard try translated({ () throws(PostgreSQLError) in try exists.bool(0, 0) }) else { return nil }
        let version = try storage.run("SELECT schema_version FROM \(schema).meta WHERE id = 1")
        // The tables and the header row are created in one transaction: tables without it are damage
        // (a deleted header), never a store to make anew.
        guard version.rowCount == 1 else { throw missingHeader }
        let found = try translated { () throws(PostgreSQLError) in try version.int32(0, 0) }
        try checkVersion(found)
        // Before anything runs in a transaction of the store's: the code on its tables is its own.
        try PostgreSQLSchemaCheck.refuseForeignCode(storage, version: found)
        return (try storage.readHeaderRecord(), found)
    }

    /// Runs `body` in a transaction that holds the schema-creation lock and has made sure the schema
    /// exists, at a version this code reads.
    static func inCreationTransaction<Result>(
        _ storage: PostgreSQLItemStorage, _ body: () throws(SecureStoreError) -> Result
    ) throws(SecureStoreError) -> Result {
        let schema = storage.schema
        // Every statement below belongs to this one transaction: none may be sent again alone.
        storage.transactionOpen = true
        defer { storage.transactionOpen = false }
        do {
            try translated { () throws(PostgreSQLError) in
                try storage.connection.execute("BEGIN")
                try storage.connection.execute(
                    "SELECT pg_advisory_xact_lock(\(PostgreSQLSchema.creationLock), hashtext('\(schema)'))")
                // Only the first creator runs the DDL: its trigger statements lock `items` exclusively,
                // which would queue behind (and in front of) other handles already writing. (The check
                // reads pg_class with a fresh snapshot: `to_regclass` answers from this session's
                // catalog cache, which may not have seen the first creator's commit yet.)
                let exists = try storage.connection.query(PostgreSQLSchema.metaExists(schema))
                if try !exists.bool(0, 0) { try storage.connection.execute(PostgreSQLSchema.creation(schema)) }
            }
            let version = try storage.run("SELECT schema_version FROM \(schema).meta WHERE id = 1")
            if version.rowCount == 1 {
                try checkVersion(try translated { () throws(PostgreSQLError) in try version.int32(0, 0) })
            }
            let result = try body()
            try translated { () throws(PostgreSQLError) in try storage.connection.execute("COMMIT") }
            return result
        } catch {
            storage.rollback()
            throw error
        }
    }

    /// `body`'s value, with a connection-layer failure said as the store's.
    static func translated<Value>(_ body: () throws(PostgreSQLError) -> Value) throws(SecureStoreError) -> Value {
        do {
            return try body()
        } catch {
            throw PostgreSQLFailure.storeError(error)
        }
    }

    private static func checkVersion(_ found: Int32) throws(SecureStoreError) {
        guard found <= PostgreSQLSchema.currentVersion else {
            throw .storage(
                StorageFailure(
                    backend: "PostgreSQL", kind: .newerFormat,
                    message: "the store's tables have version \(found); this version of Hardtack knows version "
                        + "\(PostgreSQLSchema.currentVersion)"))
        }
    }

    private static func unlock(
        _ stored: HeaderRecord?, storage: PostgreSQLItemStorage, keySource: KeySource, groups: [String],
        options: StoreOptions
    ) throws(SecureStoreError) -> StoreEngine {
        guard let stored else { throw missingHeader }
        let (header, keys) = try KeyHierarchy.unlock(stored, keySource: keySource)
        let engine = StoreEngine(storage: storage, options: options, groups: groups, header: header)
        try engine.install(keys)
        return engine
    }

    /// Tables without their header row: a store whose header was deleted, or not a Hardtack store.
    static let missingHeader = SecureStoreError.integrityFailure(
        "the store header is missing (its row was deleted, or the schema is not a Hardtack store); no new store is "
            + "made over it")
}
