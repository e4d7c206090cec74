/// What a server returned for a refresh: a new access token and, when it rotates them, a new refresh
/// token.
public struct TokenRefresh: Sendable {
    /// The new access token.
    public let accessToken: AccessToken
    /// The new refresh token, or `nil` when the server keeps the old one valid.
    public let refreshToken: RefreshToken?

    /// Creates a refresh result.
    public init(accessToken: AccessToken, refreshToken: RefreshToken?) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
    }
}
