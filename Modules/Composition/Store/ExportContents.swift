import StoreCore

/// The items of an export file, read and authenticated, ready to add to a store.
public struct ExportContents: Sendable {
    let items: [ExportedItem]

    /// How many items the export holds.
    public var count: Int { items.count }
}
