public import Foundation

/// How an ``EmbeddedAuthServer`` behaves: its accounts, clients, providers, token lifetimes and the
/// shape of its header-style replies.
public struct AuthServerOptions: Sendable {
    /// The accounts that can sign in with a password.
    public var users: [AuthServerUser]
    /// The OAuth `client_id`s the server knows; any other gets `invalid_client`.
    public var clientIDs: Set<String>
    /// The secrets of the confidential clients among ``clientIDs`` (a gateway's), which must authenticate
    /// with them at the token and revocation endpoints; the others are public clients.
    public var clientSecrets: [String: String] = [:]
    /// The identity providers accepted at `POST /auth/signin/{provider}`.
    public var identityProviders: Set<String>
    /// How long an access token is valid, in seconds.
    public var accessTokenLifetime: TimeInterval
    /// How long an access token issued by a refresh is valid, in seconds, when not ``accessTokenLifetime``
    /// (tests make only the first token short-lived, so that the refreshed one cannot run out under them).
    public var refreshedAccessTokenLifetime: TimeInterval?
    /// How long a refresh token is valid, in seconds.
    public var refreshTokenLifetime: TimeInterval
    /// The `scope` granted by the OAuth token endpoint.
    public var scope: String
    /// Where header-style replies put the refresh token.
    public var refreshTokenPlacement: RefreshTokenPlacement
    /// Whether header-style replies write `Bearer <token>` or the bare token.
    public var authorizationStyle: AuthorizationHeaderStyle

    /// Creates options; the defaults are one user (``AuthServerUser/alice``), the client
    /// `hardtack-cli`, Apple and Google, 5-minute access tokens, 30-day refresh tokens, and
    /// `Bearer` access and `Authorization-refresh` refresh headers.
    public init(
        users: [AuthServerUser] = [.alice], clientIDs: Set<String> = ["hardtack-cli"],
        identityProviders: Set<String> = ["apple", "google"], accessTokenLifetime: TimeInterval = 300,
        refreshTokenLifetime: TimeInterval = 30 * 24 * 60 * 60, scope: String = "profile",
        refreshTokenPlacement: RefreshTokenPlacement = .header, authorizationStyle: AuthorizationHeaderStyle = .bearer
    ) {
        self.users = users
        self.clientIDs = clientIDs
        self.identityProviders = identityProviders
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.scope = scope
        self.refreshTokenPlacement = refreshTokenPlacement
        self.authorizationStyle = authorizationStyle
    }
}
