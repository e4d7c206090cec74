import Data
import Domain
import Foundation
import SQLiteStore

/// A real SQLite store seen through the ``SecureItemStore`` port alone: each call forwarded, and nothing
/// the port leaves optional (so no change mark, as PostgreSQL gives none); `refusing` may fail a find first,
/// as a store that went away would.
struct PortOnlyStore: SecureItemStore {
    let base: SQLiteSecureItemStore
    var refusing: @Sendable (ItemAttributes) -> SecureStoreError? = { _ in nil }

    var accessGroups: [String] { base.accessGroups }

    func transaction<Result>(_ body: (any SecureItemTransaction) throws -> Result) throws -> Result {
        try base.transaction(body)
    }

    func add(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) {
        try base.add(attributes, data: data)
    }

    func find(_ query: ItemAttributes, limit: MatchLimit, returning parts: ItemParts) throws(SecureStoreError)
        -> [StoredItem]
    {
        if let refusal = refusing(query) { throw refusal }
        return try base.find(query, limit: limit, returning: parts)
    }

    func update(_ query: ItemAttributes, attributes: ItemAttributes?, data: SecretBytes?) throws(SecureStoreError) -> Int {
        try base.update(query, attributes: attributes, data: data)
    }

    func delete(_ query: ItemAttributes) throws(SecureStoreError) -> Int { try base.delete(query) }

    func addOrUpdate(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) -> AddOrUpdateOutcome {
        try base.addOrUpdate(attributes, data: data)
    }
}
