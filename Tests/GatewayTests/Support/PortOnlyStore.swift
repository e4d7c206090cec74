import Data
import Domain
import Foundation
import SQLiteStore

/// A real SQLite store seen through the ``SecureItemStore`` port alone: each call forwarded, but no change
/// mark unless `onMark` is given (as PostgreSQL gives none); `refusing` may fail a find first, as a store
/// that went away would; `onFind` hears of each find, after it, `onMark` of each mark asked, before it, and
/// `onAdd` of each add, before it.
struct PortOnlyStore: SecureItemStore {
    let base: SQLiteSecureItemStore
    var refusing: @Sendable (ItemAttributes) -> SecureStoreError? = { _ in nil }
    var onFind: @Sendable () -> Void = {}
    var onMark: (@Sendable () -> Void)?
    var onAdd: @Sendable () -> Void = {}

    var accessGroups: [String] { base.accessGroups }

    func transaction<Result>(_ body: (any SecureItemTransaction) throws -> Result) throws -> Result {
        try base.transaction(body)
    }

    func add(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) {
        onAdd()
        try base.add(attributes, data: data)
    }

    func find(_ query: ItemAttributes, limit: MatchLimit, returning parts: ItemParts) throws(SecureStoreError)
        -> [StoredItem]
    {
        if let refusal = refusing(query) { throw refusal }
        defer { onFind() }
        return try base.find(query, limit: limit, returning: parts)
    }

    func changeMark(waiting: Bool) -> UInt64? {
        guard let onMark else { return nil }
        onMark()
        return base.changeMark(waiting: waiting)
    }

    func update(_ query: ItemAttributes, attributes: ItemAttributes?, data: SecretBytes?) throws(SecureStoreError) -> Int {
        try base.update(query, attributes: attributes, data: data)
    }

    func delete(_ query: ItemAttributes) throws(SecureStoreError) -> Int { try base.delete(query) }

    func addOrUpdate(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) -> AddOrUpdateOutcome {
        try base.addOrUpdate(attributes, data: data)
    }
}
