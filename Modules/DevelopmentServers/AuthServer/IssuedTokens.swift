/// A freshly issued access and refresh token pair, with who they are for. Its `description` redacts
/// both tokens.
struct IssuedTokens: Sendable {
    /// The signed JWT.
    let accessToken: String
    /// The opaque refresh token.
    let refreshToken: String
    /// The access token's lifetime in seconds.
    let expiresIn: Int
    /// The user id.
    let subject: String
    /// The user's display name.
    let name: String
}

extension IssuedTokens: CustomStringConvertible, CustomReflectable {
    /// The subject and lifetime only.
    var description: String { "IssuedTokens(for: \(subject), expiresIn: \(expiresIn), tokens redacted)" }
    /// A mirror without the tokens.
    var customMirror: Mirror { Mirror(self, children: ["subject": subject, "expiresIn": expiresIn]) }
}
