public import Data
import Foundation
import OpenSSLCrypto

/// OpenID Connect on the embedded server: discovery, the JWKS, the code exchange with PKCE S256, and
/// ID tokens signed RS256 or ES256. The issuer is the address the request reached (`http://` + Host),
/// so the same server works in-process and behind `hardtack serve` on any port.
extension EmbeddedAuthServer {
    /// How long an authorization code may wait to be exchanged.
    static let authorizationCodeLifetime: TimeInterval = 60

    /// The issuer identifier for `request`.
    func issuer(of request: HTTPRequest) -> String {
        "http://" + (request.headers["Host"] ?? "127.0.0.1")
    }

    /// Signs ID tokens with a new key for `algorithm` from now on; earlier keys stay in the JWKS.
    /// - Throws: ``LibCryptoError`` when the key cannot be made.
    public func rotateIDTokenKey(to algorithm: JWSAlgorithm) throws {
        try idTokenSigner.rotate(to: algorithm)
    }

    /// `GET /.well-known/openid-configuration`.
    func discoveryDocument(_ request: HTTPRequest) -> HTTPResponse {
        let issuer = issuer(of: request)
        return AuthReply.json(
            200,
            [
                "issuer": issuer, "authorization_endpoint": issuer + "/oauth/authorize",
                "token_endpoint": issuer + "/oauth/token", "jwks_uri": issuer + "/oauth/jwks",
                "device_authorization_endpoint": issuer + "/oauth/device_authorization",
                "userinfo_endpoint": issuer + "/api/me", "revocation_endpoint": issuer + "/oauth/revoke",
                "response_types_supported": ["code"], "grant_types_supported": [
                    "authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code",
                ],
                "code_challenge_methods_supported": ["S256"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256", "ES256"],
                "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
                "authorization_response_iss_parameter_supported": true,
                "scopes_supported": ["openid", "profile", "offline_access"],
            ])
    }

    /// `GET /oauth/jwks`.
    func jsonWebKeySet() -> HTTPResponse {
        if idTokenSigner.keys.isEmpty { try? idTokenSigner.rotate(to: .rs256) }
        return AuthReply.json(200, idTokenSigner.jwks)
    }

    /// `grant_type=authorization_code`: the code once only, for the client and redirect URI it was
    /// issued to, with a verifier whose S256 hash is the challenge.
    func exchangeAuthorizationCode(_ form: [String: String], clientID: String, issuer: String) -> HTTPResponse {
        guard let code = form["code"], let redirectURI = form["redirect_uri"], let verifier = form["code_verifier"] else {
            return AuthReply.error(400, "invalid_request", "code, redirect_uri and code_verifier are required")
        }
        // Single use: removed before anything else is checked, so a second attempt always fails.
        guard let pending = authorizationCodes.removeValue(forKey: code) else {
            return AuthReply.error(400, "invalid_grant", "the code is unknown, expired or already used")
        }
        guard pending.expiresAt > clock.now else { return AuthReply.error(400, "invalid_grant", "the code has expired") }
        guard pending.clientID == clientID, pending.redirectURI == redirectURI else {
            return AuthReply.error(400, "invalid_grant", "the code was issued to another client or redirect URI")
        }
        guard (43...128).contains(verifier.utf8.count),
            let digest = try? OpenSSLRandom.sha256(Data(verifier.utf8)),
            AuthCrypto.equalInConstantTime(Base64URL.encode(digest), pending.codeChallenge)
        else {
            return AuthReply.error(400, "invalid_grant", "the PKCE code verifier does not match the challenge")
        }
        counters.signIns += 1
        let tokens = startFamily(subject: pending.subject, name: pending.name, clientID: clientID)
        return idTokenReply(
            tokens, subject: pending.subject, name: pending.name, clientID: clientID, issuer: issuer, nonce: pending.nonce)
    }

    /// A token reply with an ID token for `subject`, signed with the current key, carrying `nonce` when
    /// the request had one.
    func idTokenReply(
        _ tokens: IssuedTokens, subject: String, name: String, clientID: String, issuer: String, nonce: String?
    ) -> HTTPResponse {
        var reply = tokenReplyObject(tokens)
        let now = clock.now.timeIntervalSince1970.rounded(.down)
        var claims: [String: Any] = [
            "iss": issuer, "sub": subject, "aud": clientID, "iat": now, "exp": now + options.accessTokenLifetime,
            "name": name,
        ]
        if let nonce { claims["nonce"] = nonce }
        if idTokenSigner.keys.isEmpty { try? idTokenSigner.rotate(to: .rs256) }
        guard let idToken = try? idTokenSigner.sign(claims) else {
            return AuthReply.error(500, "server_error", "the ID token could not be signed")
        }
        reply["id_token"] = idToken
        return AuthReply.json(200, reply, headers: HTTPHeaders([("Cache-Control", "no-store")]))
    }

    /// The fields of a token reply.
    func tokenReplyObject(_ tokens: IssuedTokens) -> [String: Any] {
        [
            "access_token": tokens.accessToken, "token_type": "Bearer", "expires_in": tokens.expiresIn,
            "refresh_token": tokens.refreshToken, "scope": options.scope,
        ]
    }
}
