import StoreCore
import Data
import Domain
import Foundation

/// Opening a store file: the file checks, the connection's settings, a new store's tables, and the
/// upgrades of an older one (page checksums, the header's second copy). The key hierarchy itself is
/// the core's ``KeyHierarchy``.
enum SQLiteStoreOpener {
    /// The page cache's size as `PRAGMA cache_size` takes it: negative, in KiB.
    static let cacheKibibytes = -16384

    /// Opens the file, configures the connection, creates the store if it is new, and unlocks it.
    static func open(path: String, keySource: KeySource, groups: [String], options: StoreOptions)
        throws(SecureStoreError) -> (StoreEngine, SQLiteItemStorage)
    {
        // A new store: refuse a key that cannot be used before anything is created.
        if access(path, F_OK) != 0 { try KeyMaterial.checkBeforeCreating(keySource) }
        let path = try FileSecurity.resolveStorePath(path)
        // A new store is made whole beside the path and linked into place: a file already there is
        // never made into a store, whatever its size.
        let created = try SQLiteStoreCreation.createIfAbsent(path: path, keySource: keySource, options: options)
        try refuseEmptiedStore(path)
        let access = try SQLiteStoreAccess.choose(path: path, onlyReads: options.onlyReads)
        let writable = access == .readWrite
        try FileSecurity.prepareStoreFile(path, creating: false)
        let connection = try SQLiteConnection(path: path, access: access)
        connection.setBusyTimeout(milliseconds: options.busyTimeoutMilliseconds, onLongWait: options.onLongWait)
        // Read the header before changing anything in the file: a database that has tables but no
        // header is not a store to take over (its header was removed, or it is some other database).
        // Either copy that is sound unlocks; two sound copies that differ unlock nothing.
        let copies = try SQLiteHeaderCopies.read(connection)
        let stored = try copies.record()
        try SQLiteSchema.refuseUnknownSchema(connection)
        // Read-only (media that cannot be written): nothing is created, upgraded or switched; the
        // checksum VFS, the rows digest and the items' authentication check every read as usual.
        if !writable {
            try connection.execute(
                "PRAGMA temp_store = MEMORY; PRAGMA cache_size = \(SQLiteStoreOpener.cacheKibibytes)")
            _ = try checkPageChecksums(connection)
            let (engine, storage) = try unlock(stored, SQLiteItemStorage(connection: connection), keySource, groups, options)
            if let anchor = options.rollbackAnchor { try engine.attachAnchor(anchor, created: false) }
            return (engine, storage)
        }
        guard try enableWriteAheadLog(connection, options: options)?.lowercased() == "wal" else {
            throw .storage(
                StorageFailure(
                    backend: "SQLite", kind: .other, message: "the file system does not support SQLite's write-ahead log"))
        }
        // No journal_size_limit: cutting the log after SQLite's own checkpoints would make every later
        // commit grow the file, which doubled the cost of a durable write (measured). Until an explicit
        // checkpoint or the last close, a deleted item's ciphertext (never plaintext) may stay at the
        // log's tail.
        // A 16 MiB page cache (SQLite's default is 2 MiB): 10,000 items take about 11 MB of pages, and
        // a page read again from the file costs a system call and its checksum. SQLite allocates the
        // cache as pages are read, so a small store uses no more memory than before.
        try connection.execute(
            "PRAGMA synchronous = \(options.durability.rawValue); PRAGMA secure_delete = ON; "
                + "PRAGMA temp_store = MEMORY; PRAGMA foreign_keys = OFF; PRAGMA cache_size = \(SQLiteStoreOpener.cacheKibibytes)")

        let storage = SQLiteItemStorage(connection: connection, marks: SQLiteChangeMarks(path: path))
        if let created, stored.header == created.header.encoded {
            // Made by this open: the master key is already in hand, so the key is not derived a second time.
            let engine = StoreEngine(storage: storage, options: options, groups: groups, header: created.header)
            try engine.install(created.keys)
            if let anchor = options.rollbackAnchor { try engine.attachAnchor(anchor, created: true) }
            return (engine, storage)
        }
        let (engine, _) = try unlock(stored, storage, keySource, groups, options)
        // After the key: a wrong key leaves the file as it was.
        try addPageChecksums(connection)
        if case .noTable = copies.second, case .sound = copies.first { try SQLiteSchema.addHeaderCopy(connection) }
        try engine.ensureRowsDigest()
        if let anchor = options.rollbackAnchor { try engine.attachAnchor(anchor, created: false) }
        return (engine, storage)
    }

    /// Decodes the header and unlocks the store with `keySource`.
    private static func unlock(
        _ stored: HeaderRecord, _ storage: SQLiteItemStorage, _ keySource: KeySource, _ groups: [String],
        _ options: StoreOptions
    ) throws(SecureStoreError) -> (StoreEngine, SQLiteItemStorage) {
        let header = try StoreHeader(decoding: stored.header, checksum: stored.checksum, wrappedKey: stored.wrappedKey)
        let engine = StoreEngine(storage: storage, options: options, groups: groups, header: header)
        try engine.install(KeyHierarchy.unlock(engine, keySource: keySource))
        return (engine, storage)
    }

    /// Whether every page carries a checksum: `true` with 8 reserved bytes, `false` for an older store
    /// that reserves none.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` for any other reserve (never written by Hardtack).
    private static func checkPageChecksums(_ connection: SQLiteConnection) throws(SecureStoreError) -> Bool {
        let reserved = connection.reservedBytes
        if reserved == SQLiteChecksumVFS.reservedBytes { return true }
        guard reserved == 0 else {
            throw .integrityFailure("the database header is damaged (it reserves \(reserved) bytes per page)")
        }
        return false
    }

    /// Switches the connection to WAL mode. A new file's switch needs an exclusive lock, and SQLite
    /// answers busy at once, without calling the busy handler, while another process opens the same
    /// new store (two first uses at the same moment); so wait and retry, up to the busy timeout.
    private static func enableWriteAheadLog(_ connection: SQLiteConnection, options: StoreOptions)
        throws(SecureStoreError) -> String?
    {
        var waited: Int32 = 0
        while true {
            do {
                return try connection.scalarText("PRAGMA journal_mode = WAL")
            } catch .storage(let failure) where failure.kind == .busy && waited < options.busyTimeoutMilliseconds {
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
        if try checkPageChecksums(connection) { return }
        connection.reservePageChecksums()
        do {
            try connection.execute("VACUUM")
        } catch .storage {
            return
        }
        // Another process reading the store may hold the log: its pages then reach the file later.
        try? connection.checkpointTruncate()
    }

    /// Refuses an existing store file that is empty: a store cut to nothing, which must never become a
    /// new, empty store over the old one's name, nor read as "not found". (A new store is linked into
    /// place whole, so an empty file is never one in the making.)
    private static func refuseEmptiedStore(_ path: String) throws(SecureStoreError) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_size == 0, (info.st_mode & S_IFMT) == S_IFREG else { return }
        throw .integrityFailure(
            "the store file \(path) is empty: it was cut to nothing (its header and every page are missing), and no new "
                + "store is made over it (delete it to start a new store)")
    }
}
