public import Data
public import Domain
public import Foundation
import Synchronization

/// Several open handles of one store, each with a connection of its own, used as one store: each call goes
/// to the handle with the fewest calls in hand, so that calls from many threads reach a PostgreSQL server
/// at once instead of queueing on one connection's lock. A handle serializes its own calls, so each
/// transaction still runs on one connection from start to end; what one handle commits, the others see
/// at their next read, as any two processes on the store do.
public final class PooledItemStore: SecureItemStore {
    private let handles: [any SecureItemStore]
    private let inHand: Mutex<[Int]>

    /// The handles to spread calls over (at least one), all open on the same store with the same groups.
    public init(_ handles: [any SecureItemStore]) {
        precondition(!handles.isEmpty, "a pool needs a handle")
        self.handles = handles
        inHand = Mutex(Array(repeating: 0, count: handles.count))
    }

    /// The first handle's access groups (every handle has the same).
    public var accessGroups: [String] { handles[0].accessGroups }

    /// Runs `body` with the least busy handle, counted as busy meanwhile.
    private func withHandle<Value, Failure: Error>(
        _ body: (any SecureItemStore) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        let index = inHand.withLock { counts in
            let index = counts.indices.min { counts[$0] < counts[$1] } ?? 0
            counts[index] += 1
            return index
        }
        defer { inHand.withLock { $0[index] -= 1 } }
        return try body(handles[index])
    }

    /// Runs `body` in one transaction on one handle.
    public func transaction<Result>(_ body: (any SecureItemTransaction) throws -> Result) throws -> Result {
        try withHandle { store throws in try store.transaction(body) }
    }

    /// Adds an item through one handle.
    public func add(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) {
        try withHandle { store throws(SecureStoreError) in try store.add(attributes, data: data) }
    }

    /// Finds items through one handle.
    public func find(_ query: ItemAttributes, limit: MatchLimit, returning parts: ItemParts) throws(SecureStoreError)
        -> [StoredItem]
    {
        try withHandle { store throws(SecureStoreError) in try store.find(query, limit: limit, returning: parts) }
    }

    /// Updates items through one handle.
    public func update(_ query: ItemAttributes, attributes: ItemAttributes?, data: SecretBytes?) throws(SecureStoreError)
        -> Int
    {
        try withHandle { store throws(SecureStoreError) in try store.update(query, attributes: attributes, data: data) }
    }

    /// Deletes items through one handle.
    public func delete(_ query: ItemAttributes) throws(SecureStoreError) -> Int {
        try withHandle { store throws(SecureStoreError) in try store.delete(query) }
    }

    /// Adds or updates an item through one handle.
    public func addOrUpdate(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError)
        -> AddOrUpdateOutcome
    {
        try withHandle { store throws(SecureStoreError) in try store.addOrUpdate(attributes, data: data) }
    }

    /// The store's shared clock, read through one handle.
    public func sharedClock() throws(SecureStoreError) -> Date? {
        try withHandle { store throws(SecureStoreError) in try store.sharedClock() }
    }
}
