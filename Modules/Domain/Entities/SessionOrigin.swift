/// Where and how a session was signed in: the server's base URL, the contract it speaks and the client
/// id. Kept with the session, so that later refreshes and sign-outs go to the same place the same way.
/// The Domain only carries it; the composition root gives it meaning.
public struct SessionOrigin: Sendable, Hashable {
    /// The server's base URL, as given at sign-in.
    public var server: String
    /// The contract's name, such as `oauth` or `header`.
    public var contract: String
    /// The OAuth client id.
    public var clientID: String

    /// Creates an origin.
    public init(server: String, contract: String, clientID: String) {
        self.server = server
        self.contract = contract
        self.clientID = clientID
    }
}
