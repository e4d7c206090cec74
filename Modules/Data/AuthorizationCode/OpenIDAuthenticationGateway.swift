public import Domain
public import Foundation

/// The OAuth 2.0 contract at the endpoints discovery learnt: grants from the browser (authorization
/// code with PKCE) or the device flow exchanged at the token endpoint, the ID token validated when
/// one comes (and required when a `nonce` was sent), the user taken from it or from userinfo;
/// refresh and revocation at the issuer's own endpoints.
public struct OpenIDAuthenticationGateway: AuthenticationGateway {
    let metadata: ProviderMetadata
    let clientID: String
    /// How the client authenticates at the token and revocation endpoints.
    let client: ClientAuthentication
    let token: AuthServerExchange
    private let clients: HTTPClientForOrigin
    private let idTokens: IDTokenVerifier?
    private let clockSkew: TimeInterval
    private let now: @Sendable () -> Date

    /// Creates a gateway for the issuer `metadata` describes, as client `clientID`; `clientSecret`, for
    /// servers that require one even from native apps, is sent in token and revocation requests the way
    /// `clientAuthMethod` says (a remembered session's), else the way the issuer's metadata allows
    /// (HTTP Basic unless it lists only `client_secret_post`; ``ClientAuthentication``).
    public init(
        metadata: ProviderMetadata, clientID: String, clientSecret: SecretBytes? = nil,
        clientAuthMethod: ClientAuthentication.Method? = nil,
        clients: @escaping HTTPClientForOrigin, signatures: any JWSSignatureVerifier, clockSkew: TimeInterval = 30,
        now: @escaping @Sendable () -> Date
    ) {
        self.metadata = metadata
        self.clientID = clientID
        client = ClientAuthentication(
            clientID: clientID, secret: clientSecret, method: clientAuthMethod,
            supported: metadata.tokenEndpointAuthMethods)
        self.clients = clients
        token = AuthServerExchange(http: clients(metadata.tokenEndpoint.origin), clientID: clientID)
        idTokens = metadata.jwksURI.map { IDTokenVerifier(jwksURI: $0, clients: clients, verifier: signatures) }
        self.clockSkew = clockSkew
        self.now = now
    }

    /// Exchanges an authorization or device grant at the issuer's token endpoint and checks the ID token.
    public func signIn(_ credentials: Credentials) async throws(AuthenticationError) -> Session {
        guard case .grant(let grant) = credentials else {
            throw .unsupported("sign-in through discovery takes a grant from the browser or the device flow")
        }
        var fields: [(String, String)]
        let nonce: SecretBytes?
        switch grant {
        case .authorizationCode(let code, let verifier, let redirectURI, let sentNonce):
            fields = [
                ("grant_type", "authorization_code"), ("code", code.revealedString() ?? ""),
                ("redirect_uri", redirectURI), ("code_verifier", verifier.revealedString() ?? ""),
            ]
            nonce = sentNonce
        case .deviceCode(let deviceCode):
            fields = [
                ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                ("device_code", deviceCode.revealedString() ?? ""),
            ]
            nonce = nil
        }
        fields += client.fields
        let response = try await token.postForm(metadata.tokenEndpoint.path, fields, headers: client.headers)
        guard response.status == 200 else { throw token.signInFailure(response) }
        return try await session(from: response, nonce: nonce, method: credentials.method)
    }

    /// The session a successful token reply gives: tokens checked, the ID token validated, the user.
    func session(from response: HTTPResponse, nonce: SecretBytes?, method: SignInMethod)
        async throws(AuthenticationError) -> Session
    {
        let receivedAt = now()
        let tokens = try ResponseBody.decode(OAuthTokenResponseDTO.self, from: response)
            .tokens(receivedAt: receivedAt, requireRefreshToken: true)
        guard let refreshToken = tokens.refreshToken else { throw .invalidResponse("no refresh_token in the reply") }
        let idToken = try ResponseBody.decode(IDTokenFieldDTO.self, from: response).idToken
        let (user, identity) = try await user(idToken: idToken, nonce: nonce, accessToken: tokens.accessToken, at: receivedAt)
        return Session(
            accessToken: tokens.accessToken, refreshToken: refreshToken, user: user, method: method,
            issuer: metadata.sessionIssuer(client: client), identity: identity)
    }

    /// The user: from the validated ID token (which is kept, with the issuer's session id), else from
    /// userinfo, else unknown.
    private func user(idToken: String?, nonce: SecretBytes?, accessToken: AccessToken, at time: Date)
        async throws(AuthenticationError) -> (User?, SignInIdentity?)
    {
        if let idToken {
            guard let idTokens else { throw .invalidResponse("an ID token came, but the issuer publishes no jwks_uri") }
            let expected = IDTokenExpectations(
                issuer: metadata.issuer, clientID: clientID, nonce: nonce?.revealedString(), clockSkew: clockSkew)
            do {
                let claims = try await idTokens.validate(idToken, expecting: expected, now: time)
                return (
                    User(id: claims.subject, name: claims.name),
                    SignInIdentity(idToken: SecretBytes(utf8: idToken), sessionID: claims.sessionID)
                )
            } catch .keySetUnavailable(let why) {
                throw .temporarilyUnavailable("the issuer's key set: \(why)")
            } catch {
                throw .invalidResponse(error.description)
            }
        }
        if nonce != nil { throw .invalidResponse("no id_token in the reply, though `openid` was asked for") }
        guard let userinfo = metadata.userinfoEndpoint else { return (nil, nil) }
        guard case .success(let user) = try await ProfileAPI(http: clients(userinfo.origin), path: userinfo.path).me(accessToken)
        else { throw .invalidResponse("the new access token was refused by the userinfo endpoint") }
        return (user, nil)
    }

    /// Presents the refresh token at the issuer's token endpoint.
    public func refresh(_ session: Session) async throws(AuthenticationError) -> TokenRefresh {
        let response = try await token.postForm(
            metadata.tokenEndpoint.path,
            [
                ("grant_type", "refresh_token"), ("refresh_token", session.refreshToken.value.revealedString() ?? ""),
            ] + client.fields, headers: client.headers)
        guard response.status == 200 else { throw token.refreshFailure(response, bareUnauthorizedEndsSession: false) }
        return try ResponseBody.decode(OAuthTokenResponseDTO.self, from: response)
            .tokens(receivedAt: now(), requireRefreshToken: false)
    }

    /// Revokes the refresh token at the issuer's revocation endpoint (RFC 7009); without one, `unsupported`.
    public func revoke(_ refreshToken: RefreshToken) async throws(AuthenticationError) {
        guard let endpoint = metadata.revocationEndpoint else {
            throw .unsupported("the issuer has no revocation endpoint; the session is deleted here only")
        }
        try await AuthServerExchange(http: clients(endpoint.origin), clientID: clientID)
            .revoke(refreshToken, path: endpoint.path, client: client)
    }
}
