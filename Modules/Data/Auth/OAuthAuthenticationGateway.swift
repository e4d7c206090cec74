public import Domain
public import Foundation

/// The OAuth 2.0 contract (RFC 6749 password and refresh-token grants, RFC 7009 revocation), with the
/// user read from `GET /api/me` after sign-in.
public struct OAuthAuthenticationGateway: AuthenticationGateway {
    private let exchange: AuthServerExchange
    private let profile: ProfileAPI
    private let now: @Sendable () -> Date

    /// Creates a gateway talking to the server behind `http` as client `clientID`.
    public init(http: any HTTPClient, clientID: String, now: @escaping @Sendable () -> Date) {
        exchange = AuthServerExchange(http: http, clientID: clientID)
        profile = ProfileAPI(http: http)
        self.now = now
    }

    /// What the gateway says of credentials other than a password.
    public static let identityProviderNeedsHeaderContract =
        "the OAuth contract signs in with a username and password; identity-provider sign-in needs the header contract"

    /// Signs in at the token endpoint (password, identity token or an authorization grant).
    public func signIn(_ credentials: Credentials) async throws(AuthenticationError) -> Session {
        guard case .password(let username, let password) = credentials else {
            throw .unsupported(Self.identityProviderNeedsHeaderContract)
        }
        let response = try await exchange.postForm(
            "/oauth/token",
            [
                ("grant_type", "password"), ("username", username), ("password", password.revealedString() ?? ""),
                ("client_id", exchange.clientID),
            ])
        guard response.status == 200 else { throw exchange.signInFailure(response) }
        let tokens = try ResponseBody.decode(OAuthTokenResponseDTO.self, from: response)
            .tokens(receivedAt: now(), requireRefreshToken: true)
        guard let refreshToken = tokens.refreshToken else { throw .invalidResponse("no refresh_token in the reply") }
        guard case .success(let user) = try await profile.me(tokens.accessToken) else {
            throw .invalidResponse("the new access token was refused by /api/me")
        }
        return Session(accessToken: tokens.accessToken, refreshToken: refreshToken, user: user, method: .password)
    }

    /// Presents the refresh token at the token endpoint for a new access token.
    public func refresh(_ session: Session) async throws(AuthenticationError) -> TokenRefresh {
        let response = try await exchange.postForm(
            "/oauth/token",
            [
                ("grant_type", "refresh_token"), ("refresh_token", session.refreshToken.value.revealedString() ?? ""),
                ("client_id", exchange.clientID),
            ])
        guard response.status == 200 else { throw exchange.refreshFailure(response, bareUnauthorizedEndsSession: false) }
        return try ResponseBody.decode(OAuthTokenResponseDTO.self, from: response)
            .tokens(receivedAt: now(), requireRefreshToken: false)
    }

    /// Revokes the refresh token (RFC 7009).
    public func revoke(_ refreshToken: RefreshToken) async throws(AuthenticationError) {
        try await exchange.revoke(refreshToken)
    }
}
