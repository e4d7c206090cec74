public import Data
public import Domain
public import Foundation

/// A store handle whose operations all go to one engine behind its lock: the SQLite, PostgreSQL and
/// in-memory handles share these implementations rather than each forwarding them. Inlinable, so a
/// call through a handle costs what a direct call to its engine does.
public protocol EngineBackedStore: SecureItemStore {
    /// The engine behind the handle's lock (opaque outside the store's package).
    var engine: LockedEngine { get }
}

extension EngineBackedStore {
    /// Whether the keys are wiped; a locked store refuses every item operation with
    /// ``SecureStoreError/locked``.
    @inlinable public var isLocked: Bool { engine.isLocked }

    /// Wipes the keys from memory. Reads and writes fail with ``SecureStoreError/locked`` until
    /// ``unlock(with:)``.
    @inlinable public func lock() { engine.lock() }

    /// A number that moves with every commit to the store. See ``SecureItemStore/changeMark(waiting:)``.
    @inlinable public func changeMark(waiting: Bool) -> UInt64? { engine.changeMark(waiting: waiting) }

    /// Unlocks a locked store.
    /// - Throws: ``SecureStoreError/wrongKey`` when `keySource` does not unlock it.
    @inlinable public func unlock(with keySource: KeySource) throws(SecureStoreError) {
        try engine.unlock(with: keySource)
    }

    /// Rewraps the master key under a new passphrase or key source in one transaction; no item is
    /// re-encrypted, so it takes the same time whatever the number of items. The master key stays the
    /// same: an older copy of the header still opens with the old passphrase or key, also the items
    /// written after the change. After a leak, ``rotateKey(to:progress:)``.
    /// - Throws: ``SecureStoreError/locked`` when the store is locked.
    @inlinable public func changeKey(to newSource: KeySource) throws(SecureStoreError) {
        try engine.changeKey(to: newSource)
    }

    /// Replaces the master key with a new random one and re-seals every item under it, and wraps it
    /// under `newSource` (the current passphrase or key source, or a new one), all in one transaction;
    /// `progress` is called with (done, total) as items are re-sealed. Returns how many were. An older
    /// copy of the header then opens nothing the store holds or will hold. Stopped midway (a killed
    /// process), it changes nothing, and runs again from the start.
    /// - Throws: ``SecureStoreError/locked`` when the store is locked, ``SecureStoreError/integrityFailure(_:)``
    ///   when an item is damaged (nothing changed), ``SecureStoreError/invalidKeyMaterial(_:)`` for
    ///   unusable new material.
    @inlinable @discardableResult
    public func rotateKey(to newSource: KeySource, progress: (Int, Int) -> Void = { _, _ in }) throws(SecureStoreError)
        -> Int
    {
        try engine.rotateKey(to: newSource, progress: progress)
    }

    /// Decrypts and checks every item, and checks the rows against their digest (and, on SQLite, runs
    /// its structural check). Prints nothing.
    @inlinable public func verify() throws(SecureStoreError) -> VerifyReport { try engine.verify() }

    /// Adds an item. See ``SecureItemTransaction/add(_:data:)``.
    @inlinable public func add(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) {
        try engine.add(attributes, data: data)
    }

    /// Finds items. See ``SecureItemTransaction/find(_:limit:returning:)``.
    @inlinable public func find(_ query: ItemAttributes, limit: MatchLimit, returning parts: ItemParts)
        throws(SecureStoreError) -> [StoredItem]
    {
        try engine.find(query, limit: limit, returning: parts)
    }

    /// Updates every match. See ``SecureItemTransaction/update(_:attributes:data:)``.
    @inlinable @discardableResult
    public func update(_ query: ItemAttributes, attributes: ItemAttributes?, data: SecretBytes?)
        throws(SecureStoreError) -> Int
    {
        try engine.update(query, attributes: attributes, data: data)
    }

    /// Deletes every match. See ``SecureItemTransaction/delete(_:)``.
    @inlinable @discardableResult
    public func delete(_ query: ItemAttributes) throws(SecureStoreError) -> Int { try engine.delete(query) }

    /// Adds or updates atomically. See ``SecureItemTransaction/addOrUpdate(_:data:)``.
    @inlinable @discardableResult
    public func addOrUpdate(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError)
        -> AddOrUpdateOutcome
    {
        try engine.addOrUpdate(attributes, data: data)
    }

    /// The time by the database server's clock, or `nil` for a store file. See
    /// ``SecureItemTransaction/sharedClock()``.
    @inlinable public func sharedClock() throws(SecureStoreError) -> Date? { try engine.sharedClock() }

    /// Runs `body` in one write transaction holding the store's write lock (SQLite: `BEGIN IMMEDIATE`;
    /// PostgreSQL: the digest row's lock). See ``SecureItemStore/transaction(_:)``.
    @inlinable public func transaction<Result>(_ body: (any SecureItemTransaction) throws -> Result) throws -> Result {
        try engine.transaction(body)
    }
}
