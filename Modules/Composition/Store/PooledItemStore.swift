public import Data
public import Domain
public import Foundation
import Locking

/// Several open handles of one store, each with a connection of its own, used as one store for reads:
/// each `find` goes to the handle with the fewest calls in hand (ties taken in turn), so that the reads of
/// many threads reach a PostgreSQL server at once instead of queueing on one connection's lock. Every write
/// and transaction goes to the first handle: a write on another connection would count the siblings'
/// commits as another writer's, and re-check its group's digest inside the write's lock each time.
///
/// A call made inside a transaction's body through the pool (not through the transaction it was given)
/// would reach another connection and wait for the transaction's own locks: the pool refuses it with
/// ``SecureStoreError/storage(_:)`` of kind `misuse` instead of hanging.
public final class PooledItemStore: SecureItemStore {
    private let handles: [any SecureItemStore]
    private let inHand: Locked<(counts: [Int], next: Int)>
    /// Set on a thread while it runs a transaction's body for the pool.
    private static let transactionThread = ThreadFlag()

    /// The handles to spread reads over (at least one), all open on the same store with the same groups;
    /// the first takes every write.
    public init(_ handles: [any SecureItemStore]) {
        precondition(!handles.isEmpty, "a pool needs a handle")
        self.handles = handles
        inHand = Locked((Array(repeating: 0, count: handles.count), 0))
    }

    /// The first handle's access groups (every handle has the same).
    public var accessGroups: [String] { handles[0].accessGroups }

    /// The first handle's change mark: it sees every commit, its siblings' included (each is another
    /// connection to its store). `nil` inside one of the pool's transactions. See
    /// ``SecureItemStore/changeMark(waiting:)``.
    public func changeMark(waiting: Bool) -> UInt64? {
        guard !Self.transactionThread.isSet else { return nil }
        return handles[0].changeMark(waiting: waiting)
    }

    /// The refusal of a call made through the pool inside one of its transactions.
    private static let reentered = SecureStoreError.storage(
        .store("a store call inside a transaction must go through the transaction it was given, not the store"))

    /// Runs `body` with the least busy handle (ties in turn), counted as busy meanwhile.
    private func withReader<Value>(
        _ body: (any SecureItemStore) throws(SecureStoreError) -> Value
    ) throws(SecureStoreError) -> Value {
        guard !Self.transactionThread.isSet else { throw Self.reentered }
        let index = inHand.withLock { state in
            let count = state.counts.count
            var best = state.next % count
            for offset in 0..<count {
                let candidate = (state.next + offset) % count
                if state.counts[candidate] < state.counts[best] { best = candidate }
            }
            state.next = (best + 1) % count
            state.counts[best] += 1
            return best
        }
        defer { inHand.withLock { $0.counts[index] -= 1 } }
        return try body(handles[index])
    }

    /// Runs `body` with the writing handle.
    private func withWriter<Value>(
        _ body: (any SecureItemStore) throws(SecureStoreError) -> Value
    ) throws(SecureStoreError) -> Value {
        guard !Self.transactionThread.isSet else { throw Self.reentered }
        inHand.withLock { $0.counts[0] += 1 }
        defer { inHand.withLock { $0.counts[0] -= 1 } }
        return try body(handles[0])
    }

    /// Runs `body` in one transaction on the writing handle.
    public func transaction<Result>(_ body: (any SecureItemTransaction) throws -> Result) throws -> Result {
        guard !Self.transactionThread.isSet else { throw Self.reentered }
        inHand.withLock { $0.counts[0] += 1 }
        defer { inHand.withLock { $0.counts[0] -= 1 } }
        return try handles[0].transaction { transaction in
            try Self.transactionThread.whileSet { try body(transaction) }
        }
    }

    /// Adds an item through the writing handle.
    public func add(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) {
        try withWriter { store throws(SecureStoreError) in try store.add(attributes, data: data) }
    }

    /// Finds items through the least busy handle.
    public func find(_ query: ItemAttributes, limit: MatchLimit, returning parts: ItemParts) throws(SecureStoreError)
        -> [StoredItem]
    {
        try withReader { store throws(SecureStoreError) in try store.find(query, limit: limit, returning: parts) }
    }

    /// Updates items through the writing handle.
    public func update(_ query: ItemAttributes, attributes: ItemAttributes?, data: SecretBytes?) throws(SecureStoreError)
        -> Int
    {
        try withWriter { store throws(SecureStoreError) in try store.update(query, attributes: attributes, data: data) }
    }

    /// Deletes items through the writing handle.
    public func delete(_ query: ItemAttributes) throws(SecureStoreError) -> Int {
        try withWriter { store throws(SecureStoreError) in try store.delete(query) }
    }

    /// Adds or updates an item through the writing handle.
    public func addOrUpdate(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError)
        -> AddOrUpdateOutcome
    {
        try withWriter { store throws(SecureStoreError) in try store.addOrUpdate(attributes, data: data) }
    }

    /// The store's shared clock, read through the least busy handle.
    public func sharedClock() throws(SecureStoreError) -> Date? {
        try withReader { store throws(SecureStoreError) in try store.sharedClock() }
    }
}
