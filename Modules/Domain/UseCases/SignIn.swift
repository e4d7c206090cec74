/// Signs a user in: exchanges credentials for a session and stores it atomically, replacing any
/// earlier one. Nothing is stored when the server refuses or answers out of contract.
public struct SignIn: Sendable {
    private let gateway: any AuthenticationGateway
    private let repository: any SessionRepository
    private let origin: SessionOrigin?
    private let gatewayForOrigin: @Sendable (SessionOrigin) -> (any AuthenticationGateway)?

    /// Creates the use case; `origin`, if given, is stored with every session it signs in.
    /// `gatewayForOrigin` gives a gateway that speaks a replaced session's own contract and client (at
    /// the same server), so that its refresh token can be revoked when the new sign-in used another.
    public init(
        gateway: any AuthenticationGateway, repository: any SessionRepository, origin: SessionOrigin? = nil,
        gatewayForOrigin: @escaping @Sendable (SessionOrigin) -> (any AuthenticationGateway)? = { _ in nil }
    ) {
        self.gateway = gateway
        self.repository = repository
        self.origin = origin
        self.gatewayForOrigin = gatewayForOrigin
    }

    /// Signs in with `credentials` and returns the stored session.
    /// - Throws: ``AuthenticationError`` from the server or the store.
    public func callAsFunction(_ credentials: Credentials) async throws(AuthenticationError) -> Session {
        if case .password(let username, let password) = credentials, username.isEmpty || password.isEmpty {
            throw .invalidCredentials("a username and a password are both required")
        }
        if case .identityToken(let provider, let token) = credentials, provider.isEmpty || token.isEmpty {
            throw .invalidCredentials("an identity provider and its token are both required")
        }
        let previous = try? repository.load()
        var session = try await gateway.signIn(credentials)
        if let origin { session.origin = origin }
        try repository.replace(with: session)
        // The replaced session's refresh token would stay live at the server: revoke it (best effort, as
        // sign-out does), but only where it came from, in its own contract; it is never sent to another
        // server.
        if let old = previous ?? nil, !old.refreshToken.isSameToken(as: session.refreshToken) {
            if old.origin == session.origin {
                try? await gateway.revoke(old.refreshToken)
            } else if let oldOrigin = old.origin, oldOrigin.server == session.origin?.server,
                let oldGateway = gatewayForOrigin(oldOrigin)
            {
                try? await oldGateway.revoke(old.refreshToken)
            }
        }
        return session
    }
}
