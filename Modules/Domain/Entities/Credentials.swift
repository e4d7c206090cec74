/// What a user presents to sign in.
public enum Credentials: Sendable {
    /// A username and password.
    case password(username: String, password: SecretBytes)
    /// An identity token issued by a third-party provider (`apple`, `google`, …).
    case identityToken(provider: String, token: SecretBytes)
    /// A grant from the browser or the device flow, exchanged at the issuer's token endpoint.
    case grant(AuthorizationGrant)

    /// The method a session started with these credentials remembers.
    public var method: SignInMethod {
        switch self {
        case .password: .password
        case .identityToken(let provider, _): .identityProvider(provider)
        case .grant(.authorizationCode): .authorizationCode
        case .grant(.deviceCode): .deviceCode
        }
    }
}
