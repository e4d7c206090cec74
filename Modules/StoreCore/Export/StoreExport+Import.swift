public import Data
import Domain

/// Putting exported items into a store.
extension StoreExport {
    /// What an import did.
    public struct ImportSummary: Sendable, Equatable {
        /// Items added.
        public let added: Int
        /// Items that existed and were updated (`update` only).
        public let updated: Int

        /// A summary of `added` and `updated` items.
        public init(added: Int, updated: Int) {
            self.added = added
            self.updated = updated
        }
    }

    /// Adds `items` to `store` in one transaction: all of them or none. An item whose unique key is
    /// taken is an error (``SecureStoreError/duplicateItem``) unless `update`, which then sets its data
    /// and attributes and keeps its creation date. The store sets the dates of items it adds.
    public static func add(_ items: [ExportedItem], to store: any SecureItemStore, update: Bool)
        throws(SecureStoreError) -> ImportSummary
    {
        do {
            return try store.transaction { transaction in
                var added = 0
                var updated = 0
                for item in items {
                    var attributes = item.attributes
                    attributes.setStoreManaged(.creationDate, nil)
                    attributes.setStoreManaged(.modificationDate, nil)
                    if update {
                        switch try transaction.addOrUpdate(attributes, data: item.data) {
                        case .added: added += 1
                        case .updated: updated += 1
                        }
                    } else {
                        try transaction.add(attributes, data: item.data)
                        added += 1
                    }
                }
                return ImportSummary(added: added, updated: updated)
            }
        } catch let error as SecureStoreError {
            throw error
        } catch {
            throw .storage(.store("unexpected failure: \(type(of: error))", kind: .other))
        }
    }
}
