public import Domain

/// One item a find returned: the parts asked for.
public struct StoredItem: Sendable {
    /// The item's class.
    public let itemClass: ItemClass
    /// The item's attributes, including its access group and dates, when asked for.
    public let attributes: ItemAttributes?
    /// The item's secret data, when asked for; wiped when released.
    public let data: SecretBytes?

    /// Creates a result.
    public init(itemClass: ItemClass, attributes: ItemAttributes?, data: SecretBytes?) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.data = data
    }
}
