/// What a sign-out did, at the server and locally; both are reported.
public struct SignOutResult: Sendable, Equatable {
    /// What happened at the server.
    public enum Revocation: Sendable, Equatable {
        /// The server revoked the refresh token.
        case revoked
        /// Revocation failed; the local session was deleted anyway. The reason says why.
        case failed(String)
        /// There was no session, so nothing to revoke.
        case notSignedIn
    }

    /// The server side.
    public let revocation: Revocation
    /// Whether a local session was deleted.
    public let deletedLocalSession: Bool

    /// Creates a result.
    public init(revocation: Revocation, deletedLocalSession: Bool) {
        self.revocation = revocation
        self.deletedLocalSession = deletedLocalSession
    }
}
