public import Data

/// An item salvage found a trace of but could not bring back, named by what is still known of it: its
/// row, its class when the class cell could be read, and its naming attributes (service or server,
/// account, label) when they still decrypt. Never its secret.
public struct LostItem: Sendable, Hashable {
    /// Why the item could not be brought back.
    public typealias Reason = ItemDamage

    /// The row that held it, when known.
    public let rowID: Int64?
    /// Its class, when known.
    public let itemClass: ItemClass?
    /// Why it was lost.
    public let reason: Reason
    /// Its naming attributes, when they still decrypt.
    public let name: [AttributeName: AttributeValue]

    /// A lost item.
    package init(rowID: Int64?, itemClass: ItemClass?, reason: Reason, name: [AttributeName: AttributeValue] = [:]) {
        self.rowID = rowID
        self.itemClass = itemClass
        self.reason = reason
        self.name = name
    }
}
