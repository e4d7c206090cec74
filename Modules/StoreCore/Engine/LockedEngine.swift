public import Data
public import Domain
public import Foundation
import Synchronization

/// A store handle's engine behind its lock: what every backend's handle does around the engine, once.
/// Public only as the opaque type of ``EngineBackedStore/engine``: every member is the package's.
/// Operations are serialized by a mutex; a call made from inside the handle's own transaction body
/// (which holds the lock) is refused with an error instead of deadlocking.
public final class LockedEngine: Sendable {
    // Safety: `engine` (the storage and keys) is used only while `engineLock` is held, through
    // `withEngine`, so at most one thread touches it at a time; no reference to it escapes a call.
    private nonisolated(unsafe) let engine: StoreEngine
    // A pthread mutex (NSLock) rather than Synchronization's Mutex: on Linux, ThreadSanitizer cannot
    // see the latter's hand-off between threads, and reported every handle shared by two threads as
    // a data race, which would hide a real one.
    private let engineLock = NSLock()
    /// The thread holding `engineLock`, so a call from inside a transaction body is refused, not deadlocked.
    private let holder = Atomic<UInt>(0)
    /// The storage's marks read without the lock, if it has them.
    private let marks: (any ChangeMarkSource)?
    /// Whether the keys are in place, as the last holder of the lock left them: read by
    /// ``changeMark(waiting:)`` without the lock.
    private let keysInPlace: Atomic<Bool>

    /// Guards `engine`, which no one else may keep a reference to.
    package init(_ engine: StoreEngine) {
        self.engine = engine
        marks = engine.storage.changeMarkSource
        keysInPlace = Atomic(engine.keys != nil)
    }

    /// Runs `body` with exclusive use of the engine; refuses a call from inside the handle's own
    /// transaction body.
    ///
    /// An integrity failure when another handle has changed the store's key since this one unlocked it
    /// (a rotation: this handle's keys open nothing any more) locks the handle and is
    /// ``SecureStoreError/locked``: ``unlock(with:)`` opens it again under the new key.
    package func withEngine<Result>(_ body: (StoreEngine) throws(SecureStoreError) -> Result) throws(SecureStoreError)
        -> Result
    {
        try checkNotReentrant()
        return try locked { (engine: StoreEngine) throws(SecureStoreError) -> Result in
            do throws(SecureStoreError) {
                return try body(engine)
            } catch {
                if case .integrityFailure = error, engine.headerChangedElsewhere() {
                    engine.lock()
                    throw .locked
                }
                throw error
            }
        }
    }

    /// Whether the keys are wiped.
    @usableFromInline
    package var isLocked: Bool { locked { $0.keys == nil } }

    /// Wipes the keys from memory.
    @usableFromInline
    package func lock() { locked { $0.lock() } }

    /// The storage's change mark (``ItemStorage/changeMark(waiting:)``) when the keys are in place; `nil` when
    /// the store cannot tell, is locked or failed to answer, and, unless `waiting`, when the handle is busy
    /// or the storage would have to wait for another connection's lock.
    /// See ``SecureItemStore/changeMark(waiting:)``.
    @usableFromInline
    package func changeMark(waiting: Bool) -> UInt64? {
        if let marks {
            // Without the lock: the keys as its last holder left them (a store locked since gives none),
            // and none inside the handle's own transaction, whose writes no mark counts yet.
            guard holder.load(ordering: .relaxed) != Self.currentThread else { return nil }
            return keysInPlace.load(ordering: .acquiring) ? marks.mark(waiting: waiting) : nil
        }
        let mark = { (engine: StoreEngine) -> UInt64? in
            engine.keys == nil ? nil : try? engine.storage.changeMark(waiting: waiting)
        }
        if waiting { return (try? checkNotReentrant()) == nil ? nil : locked(mark) }
        guard engineLock.try() else { return nil }
        defer { engineLock.unlock() }
        return mark(engine)
    }

    /// Runs `body` in one write transaction. See ``SecureItemStore/transaction(_:)``.
    @usableFromInline
    package func transaction<Result>(_ body: (any SecureItemTransaction) throws -> Result) throws -> Result {
        try checkNotReentrant()
        return try locked { engine in
            let transaction = StoreTransaction(engine: engine)
            defer { transaction.end() }
            do {
                return try engine.write { try body(transaction) }
            } catch SecureStoreError.integrityFailure(let reason) {
                // As ``withEngine(_:)``: keys made obsolete by a rotation elsewhere are not damage.
                if engine.headerChangedElsewhere() {
                    engine.lock()
                    throw SecureStoreError.locked
                }
                throw SecureStoreError.integrityFailure(reason)
            }
        }
    }

    /// Adds an item. See ``SecureItemTransaction/add(_:data:)``.
    @usableFromInline
    package func add(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) {
        try withEngine { engine throws(SecureStoreError) in try engine.add(attributes, data: data) }
    }

    /// Finds items. See ``SecureItemTransaction/find(_:limit:returning:)``.
    @usableFromInline
    package func find(_ query: ItemAttributes, limit: MatchLimit, returning parts: ItemParts) throws(SecureStoreError)
        -> [StoredItem]
    {
        try withEngine { engine throws(SecureStoreError) in try engine.find(query, limit: limit, returning: parts) }
    }

    /// Updates every match. See ``SecureItemTransaction/update(_:attributes:data:)``.
    @usableFromInline
    package func update(_ query: ItemAttributes, attributes: ItemAttributes?, data: SecretBytes?)
        throws(SecureStoreError) -> Int
    {
        try withEngine { engine throws(SecureStoreError) in try engine.update(query, attributes: attributes, data: data) }
    }

    /// Deletes every match. See ``SecureItemTransaction/delete(_:)``.
    @usableFromInline
    package func delete(_ query: ItemAttributes) throws(SecureStoreError) -> Int {
        try withEngine { engine throws(SecureStoreError) in try engine.delete(query) }
    }

    /// Adds or updates atomically. See ``SecureItemTransaction/addOrUpdate(_:data:)``.
    @usableFromInline
    package func addOrUpdate(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError)
        -> AddOrUpdateOutcome
    {
        try withEngine { engine throws(SecureStoreError) in try engine.addOrUpdate(attributes, data: data) }
    }

    /// The database server's clock, or `nil`. See ``SecureItemTransaction/sharedClock()``.
    @usableFromInline
    package func sharedClock() throws(SecureStoreError) -> Date? {
        try withEngine { engine throws(SecureStoreError) in try engine.storage.sharedClock() }
    }

    /// Unlocks a locked store. - Throws: ``SecureStoreError/wrongKey`` when `keySource` does not unlock it.
    @usableFromInline
    package func unlock(with keySource: KeySource) throws(SecureStoreError) {
        try withEngine { engine throws(SecureStoreError) in
            try engine.install(KeyHierarchy.unlock(engine, keySource: keySource))
        }
    }

    /// Rewraps the master key under `newSource`. See ``KeyHierarchy/rewrap(_:to:)``.
    @usableFromInline
    package func changeKey(to newSource: KeySource) throws(SecureStoreError) {
        try withEngine { engine throws(SecureStoreError) in try KeyHierarchy.rewrap(engine, to: newSource) }
    }

    /// Rotates the master key and re-seals every row under it. See ``KeyRotation/rotate(_:to:progress:stoppingAfter:)``.
    @usableFromInline
    package func rotateKey(to newSource: KeySource, progress: (Int, Int) -> Void, stoppingAfter: Int? = nil)
        throws(SecureStoreError) -> Int
    {
        try withEngine { engine throws(SecureStoreError) in
            try KeyRotation.rotate(engine, to: newSource, progress: progress, stoppingAfter: stoppingAfter)
        }
    }

    /// Decrypts and checks every item. See ``StoreEngine/verify()``.
    @usableFromInline
    package func verify() throws(SecureStoreError) -> VerifyReport {
        try withEngine { engine throws(SecureStoreError) in try engine.verify() }
    }

    private func locked<Result, Failure: Error>(_ body: (StoreEngine) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        engineLock.lock()
        holder.store(Self.currentThread, ordering: .relaxed)
        defer {
            keysInPlace.store(engine.keys != nil, ordering: .releasing)
            holder.store(0, ordering: .relaxed)
            engineLock.unlock()
        }
        return try body(engine)
    }

    /// Refuses a call made from inside this store's own transaction body, which already holds its lock.
    private func checkNotReentrant() throws(SecureStoreError) {
        if holder.load(ordering: .relaxed) == Self.currentThread {
            throw .storage(.store("the store was called inside its own transaction; use the transaction's operations"))
        }
    }

    /// An identifier of the calling thread.
    private static var currentThread: UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            UInt(pthread_self())
        #endif
    }
}
