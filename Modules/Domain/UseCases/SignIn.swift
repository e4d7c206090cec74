/// Signs a user in: the one way a session is stored. Every sign-in ends here, whether the gateway
/// exchanges the credentials (a password, an identity token) or a flow's own exchange has already
/// issued the session (the browser's code with PKCE, the device grant, the gateway's callback). The
/// session replaces any earlier one of the account atomically, and the refresh token of the session it
/// replaced is revoked where that token came from, so that signing in again leaves no live token
/// behind. Nothing is stored when the server refuses or answers out of contract.
public struct SignIn: Sendable {
    private let gateway: any AuthenticationGateway
    private let repository: any SessionRepository
    private let origin: SessionOrigin?
    private let gatewayForReplaced: @Sendable (Session) -> (any AuthenticationGateway)?

    /// Creates the use case; `origin`, if given, is stored with every session it signs in.
    /// `gatewayForReplaced` gives a gateway that speaks a replaced session's own contract at its own
    /// server (its issuer's endpoints, or the server and client it was signed in with), so that its
    /// refresh token is revoked there; when it gives none, a replaced session of this sign-in's own
    /// origin is revoked through `gateway`, and any other is left alone.
    public init(
        gateway: any AuthenticationGateway, repository: any SessionRepository, origin: SessionOrigin? = nil,
        gatewayForReplaced: @escaping @Sendable (Session) -> (any AuthenticationGateway)? = { _ in nil }
    ) {
        self.gateway = gateway
        self.repository = repository
        self.origin = origin
        self.gatewayForReplaced = gatewayForReplaced
    }

    /// Signs in with `credentials`, which the gateway exchanges, and returns the stored session.
    /// - Throws: ``AuthenticationError`` from the server or the store.
    public func callAsFunction(_ credentials: Credentials) async throws(AuthenticationError) -> Session {
        if case .password(let username, let password) = credentials, username.isEmpty || password.isEmpty {
            throw .invalidCredentials("a username and a password are both required")
        }
        if case .identityToken(let provider, let token) = credentials, provider.isEmpty || token.isEmpty {
            throw .invalidCredentials("an identity provider and its token are both required")
        }
        return try await callAsFunction(issued: try await gateway.signIn(credentials))
    }

    /// Stores a session the server has just issued to a flow that made the exchange itself, replacing
    /// the account's, and revokes the replaced session's refresh token; returns the stored session.
    /// - Throws: ``AuthenticationError`` from the store (nothing is stored then).
    public func callAsFunction(issued: Session) async throws(AuthenticationError) -> Session {
        var session = issued
        if let origin { session.origin = origin }
        // A replaced session that cannot be read cannot be revoked; it is replaced all the same.
        let replaced = (try? await repository.load()) ?? nil
        try await repository.replace(with: session)
        // Revoked best effort, as sign-out does, and only at the server it came from, in its own contract:
        // a refresh token is never sent to another server.
        if let replaced, !replaced.refreshToken.isSameToken(as: session.refreshToken) {
            let revoker = gatewayForReplaced(replaced) ?? (replaced.origin == session.origin ? gateway : nil)
            try? await revoker?.revoke(replaced.refreshToken)
        }
        return session
    }
}
