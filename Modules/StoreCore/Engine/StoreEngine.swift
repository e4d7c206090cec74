package import Data
import Domain
import Foundation

/// The store's working parts behind its handle's lock: the storage, the header and, while unlocked,
/// the keys. Every operation of a store handle runs here, whatever the backend: the engine keeps every
/// rule of the store (encryption and binding, blind indexes, the rows digest, Keychain semantics) and
/// reaches the database only through its ``ItemStorage``.
///
/// Not `Sendable`: exactly one store handle owns an engine and touches it only inside its lock (see
/// ``LockedEngine``), so at most one thread uses the storage and keys at a time.
///
/// This is the hot path of every token read and write, so it avoids work per call that can be done
/// once: queries are planned with bit sets, indexes are inline values, and the storage keeps its
/// prepared statements.
package final class StoreEngine {
    /// Where the rows live.
    package let storage: any ItemStorage
    /// How the store was opened.
    package let options: StoreOptions
    /// The handle's access groups, first one first.
    package let groups: [String]
    /// The store's header as last read or written.
    package var header: StoreHeader
    /// The unlocked keys, or `nil` while locked.
    package private(set) var keys: ItemKeys?
    /// The blind index of each access group, in the order of ``groups``.
    var groupIndexes: [BlindIndex] = []
    /// How many transactions and savepoints are open (0: none).
    var transactionDepth = 0
    /// Whether ``readSnapshot(_:)`` has a read transaction open (a nested call runs in it).
    private var inReadSnapshot = false
    /// The row id this handle expects its next insert to get: one past the last it inserted. Only a
    /// guess (another process may have inserted since), checked by the insert itself.
    var nextID: Int64?
    /// The rows digests of the write transaction in progress, by scope (``wholeStore``, or an access
    /// group's index where the backend keeps one per group): read when the transaction starts (or, per
    /// group, before it touches the group's rows), written when it commits if a row was inserted,
    /// deleted or moved (see ``RowsDigest``).
    var pendingDigests = DigestScoped<RowsDigest>()
    /// The scopes whose digest changed in the transaction in progress.
    var changedDigests = DigestScoped<Void>()
    /// For each scope, the change counter at which its rows were last checked against the stored
    /// digest, and the damage found then (`nil`: they matched). This handle's own commits keep a match
    /// matching (and cannot start on damage); another connection's commit changes the counter, and the
    /// rows are checked again. Remembering damage makes every later read of a damaged store fail at
    /// once instead of after another full pass.
    var digestChecked = DigestScoped<(version: Int64, damage: SecureStoreError?)>()
    /// For each scope, the stored form of its digest this handle last opened or sealed, and what it
    /// holds: a stored digest that is byte for byte the same holds the same, so the next write's read
    /// of its own digest opens nothing (see ``openDigest(_:scope:keys:)``).
    var openedDigests = DigestScoped<(stored: [UInt8], digest: RowsDigest, generation: UInt64)>()
    /// The store's rollback anchor, once ``attachAnchor(_:created:)`` found or made it.
    var anchor: RollbackAnchorFile?
    /// The anchor's generation as read before the open read snapshot began (``readSnapshot(_:)``).
    var anchorFloor: UInt64?
    /// The write generation the open write transaction sealed into the store's digest, which the anchor
    /// is raised to once it commits.
    var sealedGeneration: UInt64?
    /// A committed generation the anchor could not be raised to; raised before the next check.
    var unanchoredGeneration: UInt64?
    /// The scope of a store-wide rows digest (an index of no bytes, which no group has).
    static let wholeStore = BlindIndex(count: 0)

    /// An engine over `storage`, locked until ``install(_:)``.
    package init(storage: any ItemStorage, options: StoreOptions, groups: [String], header: StoreHeader) {
        self.storage = storage
        self.options = options
        self.groups = groups
        self.header = header
    }

    deinit { keys?.wipe() }

    // MARK: Keys

    /// Installs unlocked keys and precomputes the blind index of each access group.
    package func install(_ newKeys: ItemKeys) throws(SecureStoreError) {
        keys?.wipe()
        keys = newKeys
        // What was checked or opened under other keys (another store's, if the store was made anew
        // meanwhile) proves nothing under these.
        openedDigests.removeAll()
        digestChecked.removeAll()
        groupIndexes = try groups.map { group throws(SecureStoreError) in try newKeys.groupIndex(group) }
    }

    /// Wipes the keys; reads and writes fail with ``SecureStoreError/locked`` until unlocked again.
    package func lock() {
        keys?.wipe()
        keys = nil
        groupIndexes = []
        openedDigests.removeAll()
    }

    func unlockedKeys() throws(SecureStoreError) -> ItemKeys {
        guard let keys else { throw .locked }
        return keys
    }

    // MARK: Transactions

    /// Runs `body` inside one write transaction, which takes the write lock before anything is read,
    /// so read-then-write is never interleaved with another writer.
    ///
    /// Inside a transaction already open, `body` runs in a savepoint: when it throws, all of its own
    /// writes are undone (an update that clashes on its second item leaves the first as it was) while
    /// the enclosing transaction's earlier writes stay, for the caller to commit or roll back. A
    /// transaction of its own needs no savepoint: rolling it back undoes the same writes.
    package func write<Result>(_ body: () throws -> Result) throws -> Result {
        try write(own: false, body)
    }

    /// ``write(_:)``; `own` for the store's own operations (``writeTyped(_:)``), which a backend may
    /// start under an assumed lock (``ItemStorage/beginOwnWrite()``).
    private func write<Result>(own: Bool, _ body: () throws -> Result) throws -> Result {
        if transactionDepth > 0 {
            // A backend may roll a whole transaction back on some failures (disk full, I/O error). A
            // savepoint opened now would start a new, separate transaction and commit on release.
            guard storage.isInTransaction else {
                throw SecureStoreError.storage(
                    .store("the transaction was rolled back after an earlier failure; run it again", kind: .other))
            }
            let savepoint = "nested\(transactionDepth)"
            try storage.savepoint(savepoint)
            transactionDepth += 1
            defer { transactionDepth -= 1 }
            // The rows digest as it was at the savepoint: rolled back with the rows it describes.
            let digestAtSavepoint = (pendingDigests, changedDigests)
            do {
                let result = try body()
                try storage.releaseSavepoint(savepoint)
                return result
            } catch {
                storage.rollbackToSavepoint(savepoint)
                // (A group's digest row locked inside the savepoint is unlocked with it, and read again.)
                (pendingDigests, changedDigests) = digestAtSavepoint
                throw error
            }
        }
        if own { try storage.beginOwnWrite() } else { try storage.beginWrite() }
        transactionDepth = 1
        sealedGeneration = nil
        defer {
            transactionDepth = 0
            pendingDigests.removeAll()
            changedDigests.removeAll()
            sealedGeneration = nil
        }
        do {
            try beginDigest()
            let result = try body()
            try finishDigest()
            try storage.commit()
            if let sealedGeneration { raiseAnchor(to: sealedGeneration) }
            return result
        } catch {
            storage.rollback()
            throw error
        }
    }

    /// How many times the store's own operations run when the database ends them for a conflict with
    /// another transaction (a deadlock, a serialization failure), and the pause before each new attempt.
    static let conflictAttempts = 4
    static let conflictPause: TimeInterval = 0.02

    /// ``write(_:)`` for bodies that throw only store errors: the store's own operations. One that the
    /// database ended for a conflict is run again (its transaction was rolled back whole), up to
    /// ``conflictAttempts`` times with growing pauses, then reported; inside a caller's transaction the
    /// conflict is the caller's to handle, since the whole transaction is lost.
    package func writeTyped<Result>(_ body: () throws(SecureStoreError) -> Result) throws(SecureStoreError) -> Result {
        var attempt = 1
        var assumed = true
        while true {
            do {
                return try writeOnce(body)
            } catch where transactionDepth == 0 && assumed && storage.takeFailedAssumption() {
                // The backend's assumed lock did not hold and nothing was written: once more, locking.
                assumed = false
            } catch .storage(let failure) where failure.kind == .conflict && transactionDepth == 0 {
                guard attempt < Self.conflictAttempts else {
                    throw .storage(
                        StorageFailure(
                            backend: failure.backend, kind: .conflict,
                            message: failure.message + ", \(attempt) attempts in a row", detail: failure.detail))
                }
                Thread.sleep(forTimeInterval: Double(attempt) * Self.conflictPause * Double.random(in: 0.5...1.5))
                attempt += 1
            }
        }
    }

    private func writeOnce<Result>(_ body: () throws(SecureStoreError) -> Result) throws(SecureStoreError) -> Result {
        do {
            return try write(own: transactionDepth == 0, body)
        } catch let error as SecureStoreError {
            throw error
        } catch {
            throw .storage(.store("unexpected failure: \(type(of: error))", kind: .other))
        }
    }

    /// Runs `body` in one write transaction of its own that takes the write lock itself (never an assumed
    /// one, and never run again on a conflict): for maintenance that reads every row, such as a key
    /// rotation.
    func writeOwnLock<Result>(_ body: () throws(SecureStoreError) -> Result) throws(SecureStoreError) -> Result {
        guard transactionDepth == 0 else {
            throw .storage(.store("a maintenance operation cannot run inside a transaction", kind: .misuse))
        }
        do {
            return try write(body)
        } catch let error as SecureStoreError {
            throw error
        } catch {
            throw .storage(.store("unexpected failure: \(type(of: error))", kind: .other))
        }
    }

    /// Runs `body` in a read transaction (one snapshot), or in the transaction already open.
    func readSnapshot(_ body: () throws(SecureStoreError) -> Void) throws(SecureStoreError) {
        guard transactionDepth == 0, !inReadSnapshot else { return try body() }
        // The anchor first: every generation it holds was committed before the snapshot begins.
        anchorFloor = try anchor?.read()
        defer { anchorFloor = nil }
        try storage.beginRead()
        inReadSnapshot = true
        defer { inReadSnapshot = false }
        do throws(SecureStoreError) {
            try body()
            try storage.commit()
        } catch {
            storage.rollback()
            throw error
        }
    }

    /// A read snapshot the backend ended before its body did.
    static let snapshotLost = SecureStoreError.storage(
        .store("the database ended a read's snapshot after a failure inside it; try again", kind: .other))

    // MARK: Groups and attributes

    func resolveGroupForWrite(_ group: String?) throws(SecureStoreError) -> Int {
        guard let group else { return 0 }
        guard let position = groups.firstIndex(of: group) else { throw .missingEntitlement(accessGroup: group) }
        return position
    }

    func resolveGroupsForRead(_ group: String?) throws(SecureStoreError) -> Range<Int> {
        guard let group else { return groups.indices }
        let position = try resolveGroupForWrite(group)
        return position..<(position + 1)
    }

    /// Refuses attributes a caller may not write: any the class does not allow or of the wrong kind
    /// (``ItemAttributes/setStoreManaged(_:_:)`` skips those checks, and an item written with them could
    /// never be decoded again), and the read-only dates (the first by name order, when both are given).
    func checkWritable(_ attributes: ItemAttributes) throws(SecureStoreError) {
        _ = try ItemAttributes(attributes.itemClass, attributes.values)
        var readOnly: AttributeName?
        for name in attributes.values.keys where name.isReadOnly && (readOnly.map { name < $0 } ?? true) {
            readOnly = name
        }
        if let readOnly { throw .readOnlyAttribute(readOnly) }
    }

    func roundedNow() -> Date {
        Date(timeIntervalSince1970: (options.now().timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}
