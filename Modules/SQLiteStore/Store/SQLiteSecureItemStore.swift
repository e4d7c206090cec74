public import StoreCore
public import Data
public import Domain
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
public final class SQLiteSecureItemStore: SecureItemStore {
    /// The database file.
    public let path: String
    /// The access groups this handle belongs to; new items go to the first.
    public let accessGroups: [String]
    /// The engine behind the handle's lock.
    private let engine: LockedEngine
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

    /// Whether the keys are wiped; a locked store refuses every item operation with
    /// ``SecureStoreError/locked``.
    public var isLocked: Bool { engine.isLocked }

    /// Wipes the keys from memory. Reads and writes fail with ``SecureStoreError/locked`` until
    /// ``unlock(with:)``.
    public func lock() { engine.lock() }

    /// Unlocks a locked store.
    /// - Throws: ``SecureStoreError/wrongKey`` when `keySource` does not unlock it.
    public func unlock(with keySource: KeySource) throws(SecureStoreError) { try engine.unlock(with: keySource) }

    /// Rewraps the master key under a new passphrase or key source in one transaction; no item is
    /// re-encrypted, so it takes the same time whatever the number of items.
    /// - Throws: ``SecureStoreError/locked`` when the store is locked.
    public func changeKey(to newSource: KeySource) throws(SecureStoreError) { try engine.changeKey(to: newSource) }

    /// Decrypts and checks every item, and runs SQLite's structural check. Prints nothing.
    public func verify() throws(SecureStoreError) -> VerifyReport { try engine.verify() }

    /// Moves the write-ahead log into the database file and truncates the log to zero bytes.
    public func checkpoint() throws(SecureStoreError) {
        try engine.withEngine { _ throws(SecureStoreError) in try storage.connection.checkpointTruncate() }
    }

    /// Adds an item. See ``SecureItemTransaction/add(_:data:)``.
    public func add(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) {
        try engine.add(attributes, data: data)
    }

    /// Finds items. See ``SecureItemTransaction/find(_:limit:returning:)``.
    public func find(_ query: ItemAttributes, limit: MatchLimit, returning parts: ItemParts) throws(SecureStoreError)
        -> [StoredItem]
    {
        try engine.find(query, limit: limit, returning: parts)
    }

    /// Updates every match. See ``SecureItemTransaction/update(_:attributes:data:)``.
    @discardableResult
    public func update(_ query: ItemAttributes, attributes: ItemAttributes?, data: SecretBytes?)
        throws(SecureStoreError) -> Int
    {
        try engine.update(query, attributes: attributes, data: data)
    }

    /// Deletes every match. See ``SecureItemTransaction/delete(_:)``.
    @discardableResult
    public func delete(_ query: ItemAttributes) throws(SecureStoreError) -> Int { try engine.delete(query) }

    /// Adds or updates atomically. See ``SecureItemTransaction/addOrUpdate(_:data:)``.
    @discardableResult
    public func addOrUpdate(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError)
        -> AddOrUpdateOutcome
    {
        try engine.addOrUpdate(attributes, data: data)
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction. See ``SecureItemStore/transaction(_:)``.
    public func transaction<Result>(_ body: (any SecureItemTransaction) throws -> Result) throws -> Result {
        try engine.transaction(body)
    }
}
