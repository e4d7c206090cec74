public import StoreCore
public import Data
import Foundation

/// The secure item store: Keychain Services semantics over one SQLite file, every item encrypted with
/// XChaCha20-Poly1305 under keys derived from a random master key that is only ever written wrapped.
///
/// One handle holds one connection. It is safe to share between tasks and threads (operations are
/// serialized by a mutex) and between processes (SQLite's locks, with `BEGIN IMMEDIATE` for every
/// read-then-write and a busy timeout). Inside ``transaction(_:)``, use the transaction it passes,
/// not the store: the store's own methods called there fail with an error that says so.
///
/// Calls block the calling thread while SQLite waits for another process's lock (up to the busy
/// timeout) and while Argon2id runs (opening, unlocking, changing a passphrase). From Swift
/// concurrency, keep such calls off latency-sensitive tasks.
public final class SQLiteSecureItemStore: EngineBackedStore {
    /// The database file.
    public let path: String
    /// The access groups this handle belongs to; new items go to the first.
    public let accessGroups: [String]
    /// The engine behind the handle's lock (opaque outside the store's package).
    public let engine: LockedEngine
    // Safety: the engine owns this storage too; it is touched only inside `engine.withEngine`, while
    // the handle's lock is held.
    private nonisolated(unsafe) let storage: SQLiteItemStorage

    private init(path: String, accessGroups: [String], engine: StoreEngine, storage: SQLiteItemStorage) {
        self.path = path
        self.accessGroups = accessGroups
        self.engine = LockedEngine(engine)
        self.storage = storage
    }

    /// Opens the store at `path`, creating it (and its 0700 directory) on first use, and unlocks it.
    ///
    /// - Parameters:
    ///   - path: the database file; its directory must be private to this user.
    ///   - keySource: what unlocks the store, or protects a new one.
    ///   - accessGroups: the groups this client belongs to, first one first (at least one; a group
    ///     named twice counts once).
    ///   - options: durability, passphrase cost, busy timeout and clock.
    /// - Throws: ``SecureStoreError/wrongKey`` (the file is left as it was),
    ///   ``SecureStoreError/insecurePermissions(path:fix:)``, ``SecureStoreError/integrityFailure(_:)``
    ///   for a damaged file, and the other store errors.
    public static func open(
        at path: String, keySource: KeySource, accessGroups: [String] = ["default"],
        options: StoreOptions = StoreOptions()
    ) throws(SecureStoreError) -> SQLiteSecureItemStore {
        guard !accessGroups.isEmpty, !accessGroups.contains(where: \.isEmpty) else {
            throw .missingEntitlement(accessGroup: "")
        }
        // A repeated group would make every read visit its items twice (and update and delete count them twice).
        var seen: Set<String> = []
        let groups = accessGroups.filter { seen.insert($0).inserted }
        let (engine, storage) = try SQLiteStoreOpener.open(
            path: path, keySource: keySource, groups: groups, options: options)
        return SQLiteSecureItemStore(path: path, accessGroups: groups, engine: engine, storage: storage)
    }

    /// Moves the write-ahead log into the database file and truncates the log to zero bytes.
    public func checkpoint() throws(SecureStoreError) {
        try engine.withEngine { _ throws(SecureStoreError) in try storage.connection.checkpointTruncate() }
    }

    /// What is wrong with the store header's two copies (which one is damaged, and that the other is
    /// sound), in words; `nil` when both are sound and agree (or a store made before the copy, opened
    /// read-only, has a sound one).
    public func headerDamage() throws(SecureStoreError) -> String? {
        try engine.withEngine { _ throws(SecureStoreError) in try SQLiteHeaderCopies.read(storage.connection).damage }
    }

    /// ``headerDamage()`` of the store file at `path`, read through a read-only connection without
    /// unlocking (for a store that does not open); `nil` when nothing is wrong, or when the copies
    /// cannot be read at all (the schema page damaged).
    public static func headerDamage(path: String) -> String? { SQLiteHeaderCopies.inspect(path: path) }
}
