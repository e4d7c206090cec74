package import Data
package import Domain
package import Foundation
import Synchronization

/// The operations of one open transaction: each call joins it instead of starting its own. Kept past
/// the end of its transaction (stored by the body, say), every call fails instead of touching the
/// store without its lock.
package struct StoreTransaction: SecureItemTransaction {
    // Safety: `engine` is only touched after `isOpen` was seen true, which holds only while the store's
    // mutex is held by the thread running the transaction body.
    nonisolated(unsafe) let engine: StoreEngine
    private let state = TransactionState()

    /// A transaction that runs its operations on `engine`, open until ``end()``.
    package init(engine: StoreEngine) {
        self.engine = engine
    }

    /// Closes the transaction: later calls fail.
    package func end() { state.isOpen.store(false, ordering: .relaxed) }

    private func checkOpen() throws(SecureStoreError) {
        guard state.isOpen.load(ordering: .relaxed) else {
            throw .storage(.store("this transaction has ended; use it only inside its transaction's closure"))
        }
    }

    package func add(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) {
        try checkOpen()
        try engine.add(attributes, data: data)
    }

    package func find(_ query: ItemAttributes, limit: MatchLimit, returning parts: ItemParts) throws(SecureStoreError)
        -> [StoredItem]
    {
        try checkOpen()
        return try engine.find(query, limit: limit, returning: parts)
    }

    package func update(_ query: ItemAttributes, attributes: ItemAttributes?, data: SecretBytes?) throws(SecureStoreError)
        -> Int
    {
        try checkOpen()
        return try engine.update(query, attributes: attributes, data: data)
    }

    package func delete(_ query: ItemAttributes) throws(SecureStoreError) -> Int {
        try checkOpen()
        return try engine.delete(query)
    }

    package func addOrUpdate(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) -> AddOrUpdateOutcome {
        try checkOpen()
        return try engine.addOrUpdate(attributes, data: data)
    }

    /// Adds an item with its own dates, or with `update` replaces the item with its unique key. See
    /// ``StoreEngine/restore(_:data:update:)``.
    package func restore(_ attributes: ItemAttributes, data: SecretBytes, update: Bool) throws(SecureStoreError)
        -> AddOrUpdateOutcome
    {
        try checkOpen()
        return try engine.restore(attributes, data: data, update: update)
    }

    package func sharedClock() throws(SecureStoreError) -> Date? {
        try checkOpen()
        return try engine.storage.sharedClock()
    }
}
