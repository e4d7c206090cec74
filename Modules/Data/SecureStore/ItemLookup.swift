import Domain

/// The four outcomes of reading one item, kept apart so that a store that could not be read is never
/// mistaken for one that holds nothing.
public enum ItemLookup: Sendable {
    /// The item exists; here are the parts asked for.
    case found(StoredItem)
    /// The store was read and holds no such item.
    case notFound
    /// The store is locked; nothing is known about the item.
    case locked
    /// The store or the item failed to decrypt or verify; the error says how.
    case damaged(SecureStoreError)
}
