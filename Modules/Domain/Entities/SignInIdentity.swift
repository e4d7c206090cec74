/// What the issuer's ID token said of a sign-in, kept with the session for what comes after it: the ID
/// token itself, sent back as `id_token_hint` when the user signs out at the issuer, and the issuer's own
/// session id (`sid`), which its back-channel logout tokens name.
public struct SignInIdentity: Sendable {
    /// The ID token as received (a signed JWT; it names the user, so it is kept as a secret).
    public let idToken: SecretBytes
    /// The issuer's session id (`sid`), when the ID token carried one.
    public let sessionID: String?

    /// Creates the identity.
    public init(idToken: SecretBytes, sessionID: String?) {
        self.idToken = idToken
        self.sessionID = sessionID
    }
}
