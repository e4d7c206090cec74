/// The port to the auth server: sign in, refresh, revoke. Data's gateways implement it for the
/// OAuth 2.0 and header-style contracts.
public protocol AuthenticationGateway: Sendable {
    /// Exchanges credentials for a new session.
    /// - Throws: ``AuthenticationError/invalidCredentials(_:)`` when refused,
    ///   ``AuthenticationError/temporarilyUnavailable(_:)`` when the server cannot answer,
    ///   ``AuthenticationError/invalidResponse(_:)`` when its answer does not fit the contract.
    func signIn(_ credentials: Credentials) async throws(AuthenticationError) -> Session

    /// Presents the session's refresh token for new tokens.
    /// - Throws: ``AuthenticationError/sessionExpired`` when the server rejects the refresh token
    ///   (`invalid_grant`); ``AuthenticationError/temporarilyUnavailable(_:)`` for network failures
    ///   and 5xx.
    func refresh(_ session: Session) async throws(AuthenticationError) -> TokenRefresh

    /// Revokes a refresh token (RFC 7009), ending its family at the server.
    func revoke(_ refreshToken: RefreshToken) async throws(AuthenticationError)
}
