/// What discovery learnt about an issuer: its exact identifier and endpoints, each already checked to
/// be `https` (or `http` to a loopback host).
public struct ProviderMetadata: Sendable, Equatable {
    /// The issuer identifier, equal to the one asked for.
    public let issuer: String
    /// Where the browser is sent (authorization code flow).
    public let authorizationEndpoint: EndpointURL?
    /// Where codes, device codes and refresh tokens are exchanged.
    public let tokenEndpoint: EndpointURL
    /// The issuer's key set.
    public let jwksURI: EndpointURL?
    /// The OpenID Connect userinfo endpoint.
    public let userinfoEndpoint: EndpointURL?
    /// RFC 7009 revocation.
    public let revocationEndpoint: EndpointURL?
    /// RFC 8628 device authorization.
    public let deviceAuthorizationEndpoint: EndpointURL?
    /// PKCE methods the server says it supports (empty when it does not say).
    public let codeChallengeMethods: [String]
    /// Whether the server says it sends `iss` with authorization responses (RFC 9207).
    public let sendsIssuerInAuthorizationResponse: Bool
    /// How clients may authenticate at the token endpoint (`token_endpoint_auth_methods_supported`),
    /// when the server says.
    public var tokenEndpointAuthMethods: [String]? = nil
    /// Where a browser is sent to sign out at the issuer (OpenID Connect RP-Initiated Logout), if it has one.
    public var endSessionEndpoint: EndpointURL? = nil
    /// Whether the issuer sends back-channel logout tokens (OpenID Connect Back-Channel Logout 1.0).
    public var backchannelLogoutSupported = false
    /// Whether its back-channel logout tokens carry the issuer's session id (`sid`).
    public var backchannelLogoutSessionSupported = false
    /// The scope values the issuer lists (`scopes_supported`), when it lists them; it may support others.
    public var scopesSupported: [String]? = nil

    /// Those of `scope`'s values the issuer's list leaves out (none when it lists none).
    public func unlistedScopes(of scope: String) -> [String] {
        guard let scopesSupported else { return [] }
        return scope.split(separator: " ").map(String.init).filter { !scopesSupported.contains($0) }
    }
}
