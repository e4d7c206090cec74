public import Domain

/// An item written in the same transaction as a session, so that it never outlives or lags the session's
/// write (a gateway's revocation copy of the refresh token): added, or updated under its unique key.
public struct CompanionItem: Sendable {
    /// The item's attributes, with its unique key.
    public let attributes: ItemAttributes
    /// The item's data.
    public let data: SecretBytes

    /// Creates a companion item.
    public init(attributes: ItemAttributes, data: SecretBytes) {
        self.attributes = attributes
        self.data = data
    }
}
