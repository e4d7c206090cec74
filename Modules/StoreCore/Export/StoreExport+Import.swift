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

    /// Adds `items` to `store` in one transaction: all of them or none, each with the creation and
    /// modification dates the export holds. An item whose unique key is taken is an error
    /// (``SecureStoreError/duplicateItem``) unless `update`, which then replaces its data and attributes
    /// with the export's and keeps its own creation date. A store that is not one of Hardtack's engines
    /// (a test double) sets the dates itself. `progress` is called with (``ExportStep/imported``,
    /// items added or updated so far, total) after each item, inside the transaction.
    public static func add(
        _ items: [ExportedItem], to store: any SecureItemStore, update: Bool,
        progress: (ExportStep, Int, Int) -> Void = { _, _, _ in }
    ) throws(SecureStoreError) -> ImportSummary {
        do {
            return try store.transaction { transaction in
                var added = 0
                var updated = 0
                for item in items {
                    let outcome: AddOrUpdateOutcome
                    if let engine = transaction as? StoreTransaction {
                        outcome = try engine.restore(item.attributes, data: item.data, update: update)
                    } else {
                        var attributes = item.attributes
                        attributes.setStoreManaged(.creationDate, nil)
                        attributes.setStoreManaged(.modificationDate, nil)
                        if update {
                            outcome = try transaction.addOrUpdate(attributes, data: item.data)
                        } else {
                            try transaction.add(attributes, data: item.data)
                            outcome = .added
                        }
                    }
                    switch outcome {
                    case .added: added += 1
                    case .updated: updated += 1
                    }
                    progress(.imported, added + updated, items.count)
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
