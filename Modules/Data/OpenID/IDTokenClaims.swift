public import Foundation

/// What a validated ID token says about the sign-in.
public struct IDTokenClaims: Sendable, Equatable {
    /// The user's identifier at the issuer (`sub`).
    public let subject: String
    /// A display name (`name`, else `preferred_username`), or empty.
    public let name: String
    /// When the token expires.
    public let expiresAt: Date
    /// When the issuer made it.
    public let issuedAt: Date
    /// The issuer's session id (`sid`, OpenID Connect Front- and Back-Channel Logout), when it sent one.
    public var sessionID: String? = nil
}
