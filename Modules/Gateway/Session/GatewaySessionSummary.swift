public import Domain
public import Foundation

/// What an operator sees of one gateway session: never a token or a cookie.
public struct GatewaySessionSummary: Sendable, Equatable {
    /// The session id (what `/bff/user` names `sid`; not secret on its own).
    public let sessionID: String
    /// The signed-in user, when the issuer named them.
    public let user: User?
    /// When the user signed in.
    public let signedInAt: Date?
    /// The last use the store records (written at most once a minute, so up to a minute behind).
    public let lastUsedAt: Date?
    /// When the refresh token expires (the session cannot outlive it), or `nil` when the issuer set no end.
    public let expiresAt: Date?
}
