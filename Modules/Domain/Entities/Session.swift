/// A signed-in session: both tokens, who is signed in, and how.
public struct Session: Sendable {
    /// The token sent on authorized calls.
    public var accessToken: AccessToken
    /// The token that gets a new access token.
    public var refreshToken: RefreshToken
    /// The user, or `nil` for a session imported from a legacy file, which never recorded one.
    public var user: User?
    /// How the user signed in.
    public var method: SignInMethod
    /// Where and how it was signed in, or `nil` when not known (a legacy import, an older record).
    public var origin: SessionOrigin?
    /// The issuer's endpoints, for a session signed in through discovery; `nil` for the others.
    public var issuer: SessionIssuer?
    /// What the issuer's ID token said of the sign-in, for a session that came with one.
    public var identity: SignInIdentity?

    /// Creates a session.
    public init(
        accessToken: AccessToken, refreshToken: RefreshToken, user: User?, method: SignInMethod,
        origin: SessionOrigin? = nil, issuer: SessionIssuer? = nil, identity: SignInIdentity? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.user = user
        self.method = method
        self.origin = origin
        self.issuer = issuer
        self.identity = identity
    }

    /// Whether `other` is the same generation of this session: the same refresh token and the same
    /// access token (compared in constant time). A refresh, with or without rotation, always starts a
    /// new generation, because it always issues a new access token.
    public func isSameGeneration(as other: Session) -> Bool {
        refreshToken.isSameToken(as: other.refreshToken) && accessToken.value.constantTimeEquals(other.accessToken.value)
    }

    /// This session after a refresh: the new access token, and the new refresh token if the server
    /// sent one (otherwise the old one stays).
    public func refreshed(with refresh: TokenRefresh) -> Session {
        var copy = self
        copy.accessToken = refresh.accessToken
        if let newRefreshToken = refresh.refreshToken { copy.refreshToken = newRefreshToken }
        return copy
    }
}
