public import Data

extension SecureItemTransaction {
    /// The first item matching `query`, with its data and attributes.
    public func item(_ query: ItemAttributes) throws(SecureStoreError) -> StoredItem {
        guard let item = try find(query, limit: .one, returning: .all).first else { throw .itemNotFound }
        return item
    }
}
