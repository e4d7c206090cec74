public import Data
public import Domain

/// One item as an export file holds it: its class, every attribute (access group and dates
/// included) and its secret data.
public struct ExportedItem: Sendable {
    /// The item's attributes; their class is the item's.
    public let attributes: ItemAttributes
    /// The item's secret; wiped when released.
    public let data: SecretBytes

    /// An item from its attributes and data.
    public init(attributes: ItemAttributes, data: SecretBytes) {
        self.attributes = attributes
        self.data = data
    }
}
