/// The signed-in user as the server names them.
public struct User: Sendable, Hashable {
    /// The server's stable identifier (`sub`, `userId`).
    public let id: String
    /// A display name (`name`, `nickname`).
    public let name: String

    /// Creates a user.
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}
