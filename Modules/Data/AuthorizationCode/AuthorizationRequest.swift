public import Domain
public import Foundation

/// One authorization request of the code flow (RFC 6749 §4.1.1) with PKCE S256 (RFC 7636): the URL
/// the browser opens, and what the redirect and the code exchange will be checked against. The
/// verifier never leaves this value except in the token request; `state` and `nonce` travel in the
/// URL, as the protocol wants, and are compared in constant time when they come back.
public struct AuthorizationRequest: Sendable {
    /// The URL to open in the browser.
    public let url: URL
    /// The redirect URI registered in the request, which the exchange repeats.
    public let redirectURI: String
    /// The PKCE code verifier (43 base64url characters from 32 random bytes).
    public let verifier: SecretBytes
    /// The `state` sent, which the redirect must return.
    public let state: SecretBytes
    /// The `nonce` sent when `openid` is in the scope, which the ID token must carry.
    public let nonce: SecretBytes?

    /// What a request says of an issuer with no authorization endpoint.
    public static let noAuthorizationEndpoint = "the issuer has no authorization endpoint"

    /// A fresh request to `metadata`'s authorization endpoint.
    /// - Throws: ``AuthenticationError/unsupported(_:)`` when the issuer has no authorization endpoint
    ///   or says it does not support S256, or the generator fails.
    public init(
        metadata: ProviderMetadata, clientID: String, redirectURI: String, scope: String, crypto: any SignInCrypto
    ) throws(AuthenticationError) {
        guard let endpoint = metadata.authorizationEndpoint else {
            throw .unsupported(Self.noAuthorizationEndpoint)
        }
        guard metadata.codeChallengeMethods.isEmpty || metadata.codeChallengeMethods.contains("S256") else {
            throw .unsupported("the issuer does not support PKCE with S256, which this client requires")
        }
        let verifierText = Base64URL.encode(try crypto.randomBytes(count: 32))
        let challenge = Base64URL.encode(try crypto.sha256(Data(verifierText.utf8)))
        let stateText = Base64URL.encode(try crypto.randomBytes(count: 16))
        let scopes = scope.split(separator: " ")
        let nonceText = scopes.contains("openid") ? Base64URL.encode(try crypto.randomBytes(count: 16)) : nil
        var query: [(String, String)] = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI), ("scope", scope),
            ("state", stateText), ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ]
        if let nonceText { query.append(("nonce", nonceText)) }
        let separator = endpoint.absolute.absoluteString.contains("?") ? "&" : "?"
        guard let url = URL(string: endpoint.absolute.absoluteString + separator + String(decoding: FormBody.encode(query), as: UTF8.self)) else {
            throw .unsupported("the authorization URL could not be built")
        }
        self.url = url
        self.redirectURI = redirectURI
        verifier = SecretBytes(utf8: verifierText)
        state = SecretBytes(utf8: stateText)
        nonce = nonceText.map { SecretBytes(utf8: $0) }
    }

    /// A request made earlier and kept by the caller (a server that signs browsers in keeps it in a
    /// sealed cookie between the redirect out and the redirect back), restored to check the redirect and
    /// exchange the code.
    public init(restoring url: URL, redirectURI: String, verifier: SecretBytes, state: SecretBytes, nonce: SecretBytes?) {
        self.url = url
        self.redirectURI = redirectURI
        self.verifier = verifier
        self.state = state
        self.nonce = nonce
    }

    /// The grant to exchange once the redirect brought `code`.
    public func grant(code: SecretBytes) -> AuthorizationGrant {
        .authorizationCode(code: code, verifier: verifier, redirectURI: redirectURI, nonce: nonce)
    }
}
