public import Data
public import Domain
public import Foundation

/// A store that passes every call on to a real one and records, for each, whether it ran on the store's
/// threads (``StoreThreads``): what tests of "never on the caller's thread" look at.
public final class ThreadRecordingStore: SecureItemStore {
    private let base: any SecureItemStore
    private let recorded = Locked<[Bool]>([])

    /// Wraps `base`.
    public init(_ base: any SecureItemStore) {
        self.base = base
    }

    /// For each call, in order, whether it ran on the store's threads.
    public var calls: [Bool] { recorded.withLock { $0 } }

    private func record() {
        let current = StoreThreads.isCurrent
        recorded.withLock { $0.append(current) }
    }

    public var accessGroups: [String] { base.accessGroups }

    public func transaction<Result>(_ body: (any SecureItemTransaction) throws -> Result) throws -> Result {
        record()
        return try base.transaction(body)
    }

    public func add(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) {
        record()
        try base.add(attributes, data: data)
    }

    public func find(_ query: ItemAttributes, limit: MatchLimit, returning parts: ItemParts) throws(SecureStoreError)
        -> [StoredItem]
    {
        record()
        return try base.find(query, limit: limit, returning: parts)
    }

    public func update(_ query: ItemAttributes, attributes: ItemAttributes?, data: SecretBytes?) throws(SecureStoreError)
        -> Int
    {
        record()
        return try base.update(query, attributes: attributes, data: data)
    }

    public func delete(_ query: ItemAttributes) throws(SecureStoreError) -> Int {
        record()
        return try base.delete(query)
    }

    public func addOrUpdate(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError)
        -> AddOrUpdateOutcome
    {
        record()
        return try base.addOrUpdate(attributes, data: data)
    }

    public func sharedClock() throws(SecureStoreError) -> Date? {
        record()
        return try base.sharedClock()
    }
}
