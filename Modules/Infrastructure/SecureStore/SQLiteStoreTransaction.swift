import Data
import Domain

/// The operations of one open transaction: each call joins it instead of starting its own.
struct SQLiteStoreTransaction: SecureItemTransaction {
    let engine: StoreEngine

    func add(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) {
        try engine.add(attributes, data: data)
    }

    func find(_ query: ItemAttributes, limit: MatchLimit, returning parts: ItemParts) throws(SecureStoreError)
        -> [StoredItem]
    {
        try engine.find(query, limit: limit, returning: parts)
    }

    func update(_ query: ItemAttributes, attributes: ItemAttributes?, data: SecretBytes?) throws(SecureStoreError)
        -> Int
    {
        try engine.update(query, attributes: attributes, data: data)
    }

    func delete(_ query: ItemAttributes) throws(SecureStoreError) -> Int {
        try engine.delete(query)
    }

    func addOrUpdate(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) -> AddOrUpdateOutcome {
        try engine.addOrUpdate(attributes, data: data)
    }
}
