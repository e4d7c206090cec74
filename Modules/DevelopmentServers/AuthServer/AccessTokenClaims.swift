/// The claims of an embedded-server access token.
struct AccessTokenClaims: Codable, Equatable, Sendable {
    /// The user id.
    var sub: String
    /// The user's display name.
    var name: String
    /// Issued at, in seconds since 1970.
    var iat: Int
    /// Expires at, in seconds since 1970.
    var exp: Int
    /// The token's unique id.
    var jti: String
    /// The id of the refresh-token family the token was issued with; revoking the family kills it.
    var fam: String
}
