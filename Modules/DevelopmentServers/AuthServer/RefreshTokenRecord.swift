import Foundation

/// What the server remembers about one refresh token; the token itself is never stored, only its
/// BLAKE2b digest (the dictionary key).
struct RefreshTokenRecord: Sendable {
    /// The family: every token rotated from one sign-in, and the access tokens issued with them.
    let family: String
    /// 0 for the token from sign-in, one more for each rotation.
    let generation: Int
    /// The user id.
    let subject: String
    /// The user's display name.
    let name: String
    /// The OAuth client the token was issued to, or `nil` for the header-style contract.
    let clientID: String?
    /// When the token stops being accepted.
    let expiresAt: Date
    /// Whether the token has been exchanged; presenting it again is reuse.
    var used: Bool
}
