import Domain

/// The issuer's gateway, counting the refreshes presented through it (for `/metrics`).
struct RefreshCounting: AuthenticationGateway {
    let base: any AuthenticationGateway
    let counted: @Sendable () -> Void

    func signIn(_ credentials: Credentials) async throws(AuthenticationError) -> Session {
        try await base.signIn(credentials)
    }

    func refresh(_ session: Session) async throws(AuthenticationError) -> TokenRefresh {
        counted()
        return try await base.refresh(session)
    }

    func revoke(_ refreshToken: RefreshToken) async throws(AuthenticationError) {
        try await base.revoke(refreshToken)
    }
}
