public import Data
public import Domain
public import StoreCore

/// The secure item store in memory: the same engine, encryption, blind indexes, rows digest and
/// Keychain semantics as the SQLite store, over a ``MemoryDatabase`` instead of a file. For tests of
/// the layers above the store, and as the shortest reading of the ``ItemStorage`` port's contract.
///
/// Its limits: one process only, nothing persisted (the items are gone with the database object), no
/// protection of the memory itself beyond what the engine gives every backend (ciphertexts and blind
/// indexes only; the unlocked keys are in this process as with any backend), and nothing to damage:
/// there is no file to flip bytes in, so the tamper and remnant tests do not apply to it. Handles
/// opened on one database behave like connections to one file: one writer at a time, readers see
/// only committed transactions.
public final class MemorySecureItemStore: SecureItemStore {
    /// The database this handle is open on.
    public let database: MemoryDatabase
    /// The access groups this handle belongs to; new items go to the first.
    public let accessGroups: [String]
    /// The engine behind the handle's lock.
    private let engine: LockedEngine

    private init(database: MemoryDatabase, accessGroups: [String], engine: StoreEngine) {
        self.database = database
        self.accessGroups = accessGroups
        self.engine = LockedEngine(engine)
    }

    /// Opens the store in `database`, creating it on first use, and unlocks it.
    /// - Throws: ``SecureStoreError/wrongKey`` (nothing is written),
    ///   ``SecureStoreError/missingEntitlement(accessGroup:)`` for no group or an empty one, and the
    ///   other store errors.
    public static func open(
        in database: MemoryDatabase, keySource: KeySource, accessGroups: [String] = ["default"],
        options: StoreOptions = StoreOptions()
    ) throws(SecureStoreError) -> MemorySecureItemStore {
        guard !accessGroups.isEmpty, !accessGroups.contains(where: \.isEmpty) else {
            throw .missingEntitlement(accessGroup: "")
        }
        // A repeated group would make every read visit its items twice.
        var seen: Set<String> = []
        let groups = accessGroups.filter { seen.insert($0).inserted }
        let engine = try MemoryStoreOpener.open(database, keySource: keySource, groups: groups, options: options)
        return MemorySecureItemStore(database: database, accessGroups: groups, engine: engine)
    }

    /// Whether the keys are wiped.
    public var isLocked: Bool { engine.isLocked }

    /// Wipes the keys from memory until ``unlock(with:)``.
    public func lock() { engine.lock() }

    /// Unlocks a locked store. - Throws: ``SecureStoreError/wrongKey`` when `keySource` does not unlock it.
    public func unlock(with keySource: KeySource) throws(SecureStoreError) { try engine.unlock(with: keySource) }

    /// Rewraps the master key under `newSource`. - Throws: ``SecureStoreError/locked`` when locked.
    public func changeKey(to newSource: KeySource) throws(SecureStoreError) { try engine.changeKey(to: newSource) }

    /// Decrypts and checks every item and the rows digest.
    public func verify() throws(SecureStoreError) -> VerifyReport { try engine.verify() }

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

    /// Runs `body` in one write transaction. See ``SecureItemStore/transaction(_:)``.
    public func transaction<Result>(_ body: (any SecureItemTransaction) throws -> Result) throws -> Result {
        try engine.transaction(body)
    }
}
