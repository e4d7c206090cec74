/// Signs a user in: exchanges credentials for a session and stores it atomically, replacing any
/// earlier one. Nothing is stored when the server refuses or answers out of contract.
public struct SignIn: Sendable {
    private let gateway: any AuthenticationGateway
    private let repository: any SessionRepository
    private let origin: SessionOrigin?

    /// Creates the use case; `origin`, if given, is stored with every session it signs in.
    public init(gateway: any AuthenticationGateway, repository: any SessionRepository, origin: SessionOrigin? = nil) {
        self.gateway = gateway
        self.repository = repository
        self.origin = origin
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
        // sign-out does), but only where it came from; it is never sent to another server.
        if let old = previous ?? nil, old.origin == session.origin, !old.refreshToken.isSameToken(as: session.refreshToken) {
            try? await gateway.revoke(old.refreshToken)
        }
        return session
    }
}
