/// Where a session signed in through discovery gets refreshed, revoked and asked who its user is:
/// the issuer's endpoints as discovery found them, and the client it signed in as. Kept with the
/// session, so later commands need not discover again, nor guess from the server's base URL.
public struct SessionIssuer: Sendable, Equatable {
    /// The issuer identifier.
    public let issuer: String
    /// The client id the session was issued to.
    public let clientID: String
    /// The token endpoint (refresh).
    public let tokenEndpoint: String
    /// The RFC 7009 revocation endpoint, if the issuer has one.
    public let revocationEndpoint: String?
    /// The userinfo endpoint, if the issuer has one.
    public let userinfoEndpoint: String?
    /// The client secret the session signed in with, for a provider that demands one even from a native
    /// client (RFC 8252 §8.5 advises against it); sent again with refresh and revocation. Kept as an
    /// encrypted item of its own beside the tokens, never in the session record.
    public let clientSecret: SecretBytes?
    /// How the secret is sent (`client_secret_basic` or `client_secret_post`), chosen at sign-in.
    public let clientAuthMethod: String?

    /// Creates the description.
    public init(
        issuer: String, clientID: String, tokenEndpoint: String, revocationEndpoint: String?, userinfoEndpoint: String?,
        clientSecret: SecretBytes? = nil, clientAuthMethod: String? = nil
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.tokenEndpoint = tokenEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.userinfoEndpoint = userinfoEndpoint
        self.clientSecret = clientSecret
        self.clientAuthMethod = clientSecret == nil ? nil : clientAuthMethod
    }
}
