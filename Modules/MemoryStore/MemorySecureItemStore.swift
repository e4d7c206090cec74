public import Data
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
public final class MemorySecureItemStore: EngineBackedStore {
    /// The database this handle is open on.
    public let database: MemoryDatabase
    /// The access groups this handle belongs to; new items go to the first.
    public let accessGroups: [String]
    /// The engine behind the handle's lock (opaque outside the store's package).
    public let engine: LockedEngine

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
}
