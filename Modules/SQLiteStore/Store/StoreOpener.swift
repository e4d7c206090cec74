import StoreCore
import Data
import Domain
import Foundation

/// Opening, creating, unlocking and rewrapping: everything that touches the header and master key.
enum StoreOpener {
    /// The tables. Items have one index, unique on (prim, uniq): the primary attribute is part of every
    /// class's unique key, so two items with one unique index always share their primary index too, and
    /// the pair is exactly as unique as `uniq` alone; lookups by unique key name both, lookups by the
    /// primary attribute use the index's first column. One index means one b-tree page written per
    /// insert or delete instead of two. Row ids are chosen by the store (see `StoreEngine.insert`), so
    /// there is no AUTOINCREMENT counter page to write either. Stores made with the earlier schema (a
    /// unique `uniq`, an `items_prim` index, AUTOINCREMENT) answer the same queries and keep working.
    private static let schema = """
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

    /// Opens the file, configures the connection, creates the store if it is new, and unlocks it.
    static func open(path: String, keySource: KeySource, groups: [String], options: StoreOptions)
        throws(SecureStoreError) -> StoreEngine
    {
        let path = try FileSecurity.resolveStorePath(path)
        try FileSecurity.prepareStoreFile(path)
        let connection = try SQLiteConnection(path: path)
        connection.setBusyTimeout(milliseconds: options.busyTimeoutMilliseconds)
        // Read the header before changing anything in the file: a database that has tables but no
        // header is not a store to take over (its header was removed, or it is some other database).
        var stored = try readMeta(connection)
        if stored == nil, try !isEmpty(connection) {
            // Another process may have created the store since the header was read: the tables and the
            // header are committed together, so read it again.
            stored = try readMeta(connection)
            guard stored != nil else { throw missingHeader }
        }
        // A new file gets room for a checksum on every page before its first page is written.
        if stored == nil { connection.reservePageChecksums() }
        guard try enableWriteAheadLog(connection, options: options)?.lowercased() == "wal" else {
            throw .storage(code: 0, message: "the file system does not support SQLite's write-ahead log")
        }
        // No journal_size_limit: cutting the log after SQLite's own checkpoints would make every later
        // commit grow the file, which doubled the cost of a durable write (measured). Until an explicit
        // checkpoint or the last close, a deleted item's ciphertext (never plaintext) may stay at the
        // log's tail.
        try connection.execute(
            "PRAGMA synchronous = \(options.durability.rawValue); PRAGMA secure_delete = ON; "
                + "PRAGMA temp_store = MEMORY; PRAGMA foreign_keys = OFF")

        if stored == nil, let (engine, keys) = try create(connection, keySource: keySource, groups: groups, options: options) {
            // Created here: the master key is already in hand, so the key is not derived a second time.
            try engine.install(keys)
            return engine
        }
        if stored == nil { stored = try readMeta(connection) }
        guard let stored else { throw missingHeader }
        let header = try StoreHeader(decoding: stored.header, checksum: stored.checksum, wrappedKey: stored.wrappedKey)
        let engine = StoreEngine(connection: connection, options: options, groups: groups, header: header)
        try engine.install(unlock(engine, keySource: keySource))
        // After the key: a wrong key leaves the file as it was.
        try addPageChecksums(connection)
        try engine.ensureRowsDigest()
        return engine
    }

    /// Switches the connection to WAL mode. A new file's switch needs an exclusive lock, and SQLite
    /// answers busy at once, without calling the busy handler, while another process opens the same
    /// new store (two first uses at the same moment); so wait and retry, up to the busy timeout.
    private static func enableWriteAheadLog(_ connection: SQLiteConnection, options: StoreOptions)
        throws(SecureStoreError) -> String?
    {
        let sqliteBusy: Int32 = 5
        var waited: Int32 = 0
        while true {
            do {
                return try connection.scalarText("PRAGMA journal_mode = WAL")
            } catch .storage(let code, _) where code & 0xff == sqliteBusy && waited < options.busyTimeoutMilliseconds {
                Thread.sleep(forTimeInterval: 0.005)
                waited += 5
            }
        }
    }

    /// Makes sure every page of an existing store carries a checksum (`SQLiteChecksumVFS`). A store
    /// made before page checksums reserves no bytes; it is rewritten once with `VACUUM` (row ids, and so
    /// every ciphertext, unchanged) and checkpointed so that the database file holds the stamped pages.
    /// (A header whose 8 was damaged into 0 never gets here: its page 1 still carries a checksum, and
    /// the shim reports the damage.) Any other reserve was never written by Hardtack: the header is
    /// damaged.
    ///
    /// An upgrade that cannot run now (another process holds the lock past the busy timeout, the disk
    /// is full) is not an error: the store works as before, unchecked, and the next open tries again.
    private static func addPageChecksums(_ connection: SQLiteConnection) throws(SecureStoreError) {
        let reserved = connection.reservedBytes
        if reserved == SQLiteChecksumVFS.reservedBytes { return }
        guard reserved == 0 else {
            throw .integrityFailure("the database header is damaged (it reserves \(reserved) bytes per page)")
        }
        connection.reservePageChecksums()
        do {
            try connection.execute("VACUUM")
        } catch .storage {
            return
        }
        // Another process reading the store may hold the log: its pages then reach the file later.
        try? connection.checkpointTruncate()
    }

    /// Derives the key-encryption key and unwraps the master key.
    static func unlock(_ engine: StoreEngine, keySource: KeySource) throws(SecureStoreError) -> ItemKeys {
        guard let stored = try readMeta(engine.connection) else {
            throw .integrityFailure("the store header is missing")
        }
        let header = try StoreHeader(decoding: stored.header, checksum: stored.checksum, wrappedKey: stored.wrappedKey)
        let kek = try KeyMaterial.keyEncryptionKey(from: keySource, header: header, creating: false)
        let master = try Sodium.unwrap(stored.wrappedKey, additionalData: header.encoded, key: kek)
        guard master.count == SecureKey.byteCount else { throw .integrityFailure("the wrapped key has the wrong size") }
        engine.header = header
        return try ItemKeys(
            master: try SecureKey(copying: master),
            storeID: header.storeID)
    }

    /// Wraps the master key under `newSource` with a fresh salt and writes the new header in one
    /// transaction.
    static func rewrap(_ engine: StoreEngine, to newSource: KeySource) throws(SecureStoreError) {
        guard let keys = engine.keys else { throw .locked }
        // A header whose cost is out of bounds is refused as tampered when the store is next opened.
        try checkCost(of: newSource, options: engine.options)
        let header = StoreHeader(
            storeID: engine.header.storeID, keyKind: newSource.isPassphrase ? .passphrase : .keyMaterial,
            cost: engine.options.passphraseCost)
        let wrapped = try wrap(keys.master, header: header, source: newSource)
        try engine.writeTyped { () throws(SecureStoreError) in
            let statement = try engine.connection.prepared(
                "UPDATE meta SET header = ?, checksum = ?, wrapped_key = ? WHERE id = 1")
            statement.bind(header.encoded, at: 1)
            statement.bind(StoreHeader.checksum(header: header.encoded, wrappedKey: wrapped), at: 2)
            statement.bind(wrapped, at: 3)
            try statement.run()
        }
        engine.header = header
        // The old wrapped key must not linger in the write-ahead log; secure_delete then clears the
        // old row's bytes in the main file. A reader elsewhere may keep the log busy: best effort.
        try? engine.connection.checkpointTruncate()
    }

    /// Creates the store in an empty file and returns its engine with the new keys; `nil` when another
    /// process created it first (then open it as any existing store).
    private static func create(_ connection: SQLiteConnection, keySource: KeySource, groups: [String], options: StoreOptions)
        throws(SecureStoreError) -> (StoreEngine, ItemKeys)?
    {
        try checkCost(of: keySource, options: options)
        let header = StoreHeader(
            storeID: Sodium.randomBytes(16), keyKind: keySource.isPassphrase ? .passphrase : .keyMaterial,
            cost: options.passphraseCost)
        let master = try SecureKey.random()
        let wrapped = try wrap(master, header: header, source: keySource)
        let engine = StoreEngine(connection: connection, options: options, groups: groups, header: header)
        let created = try engine.writeTyped { () throws(SecureStoreError) -> Bool in
            // Another process may have created the store while this one derived its key.
            guard try readMeta(connection) == nil else { return false }
            // Only an empty file becomes a new store: a fresh master key would orphan existing items.
            guard try isEmpty(connection) else { throw missingHeader }
            try connection.execute(schema)
            try connection.execute(RowsDigest.schema)
            let statement = try connection.prepared(
                "INSERT INTO meta (id, header, checksum, wrapped_key) VALUES (1, ?, ?, ?)")
            statement.bind(header.encoded, at: 1)
            statement.bind(StoreHeader.checksum(header: header.encoded, wrappedKey: wrapped), at: 2)
            statement.bind(wrapped, at: 3)
            try statement.run()
            let digest = try connection.prepared("INSERT INTO rows_digest (id, value) VALUES (1, ?)")
            digest.bind(RowsDigest.empty.encoded, at: 1)
            try digest.run()
            return true
        }
        return created ? (engine, try ItemKeys(master: master, storeID: header.storeID)) : nil
    }

    /// Refuses a passphrase cost outside the bounds a header is checked against.
    private static func checkCost(of source: KeySource, options: StoreOptions) throws(SecureStoreError) {
        if source.isPassphrase, !options.passphraseCost.isWithinBounds {
            throw .invalidKeyMaterial("the Argon2id cost is outside the supported range")
        }
    }

    /// Whether the database has no tables at all: a new file.
    private static func isEmpty(_ connection: SQLiteConnection) throws(SecureStoreError) -> Bool {
        try connection.scalarText("SELECT count(*) FROM sqlite_master") == "0"
    }

    /// A database with tables but no header: a store whose header was deleted, or not a store at all.
    private static let missingHeader = SecureStoreError.integrityFailure(
        "the store header is missing (the file was damaged, or is not a Hardtack store)")

    private static func wrap(_ master: SecureKey, header: StoreHeader, source: KeySource) throws(SecureStoreError)
        -> [UInt8]
    {
        let kek = try KeyMaterial.keyEncryptionKey(from: source, header: header, creating: true)
        return try master.withBytes { bytes throws(SecureStoreError) in
            try Sodium.seal(
                UnsafeRawBufferPointer(start: bytes, count: SecureKey.byteCount), additionalData: header.encoded,
                key: kek)
        }
    }

    private struct StoredMeta: Equatable {
        let header: [UInt8]
        let checksum: [UInt8]
        let wrappedKey: [UInt8]
    }

    private static func readMeta(_ connection: SQLiteConnection) throws(SecureStoreError) -> StoredMeta? {
        guard try connection.scalarText("SELECT count(*) FROM sqlite_master WHERE name = 'meta'") == "1" else {
            return nil
        }
        let statement = try connection.prepared("SELECT header, checksum, wrapped_key FROM meta WHERE id = 1")
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return StoredMeta(header: statement.bytes(at: 0), checksum: statement.bytes(at: 1), wrappedKey: statement.bytes(at: 2))
    }
}
