import Data
import Foundation

/// The header-style contract: JSON sign-in bodies, tokens returned in `Authorization` and
/// `Authorization-refresh` headers (or the refresh token in the body, per ``AuthServerOptions``).
extension EmbeddedAuthServer {
    /// `POST /auth/signin` with `{"username","password"}`.
    func passwordSignIn(_ request: HTTPRequest) -> HTTPResponse {
        guard let object = AuthReply.jsonObject(request.body), let username = object["username"] as? String,
            let password = object["password"] as? String
        else { return AuthReply.error(400, "invalid_request", #"the body must be JSON {"username","password"}"#) }
        guard let user = authenticate(username: username, password: password) else {
            return AuthReply.error(401, "invalid_grant", "the username or password is wrong")
        }
        counters.signIns += 1
        return headerReply(startFamily(subject: user.username, name: user.displayName, clientID: nil))
    }

    /// `POST /auth/signin/{provider}` with `{"identityToken"}`. A stand-in for verifying the
    /// provider's signed token: any non-empty token except `invalid` is accepted, and the same token
    /// always maps to the same user, `<provider>:<first 16 hex digits of its BLAKE2b digest>`.
    func providerSignIn(_ request: HTTPRequest, provider: String) -> HTTPResponse {
        guard let object = AuthReply.jsonObject(request.body), let identityToken = object["identityToken"] as? String
        else { return AuthReply.error(400, "invalid_request", #"the body must be JSON {"identityToken"}"#) }
        guard !identityToken.isEmpty, identityToken != "invalid" else {
            return AuthReply.error(401, "invalid_grant", "the identity token was not accepted")
        }
        let hex = AuthCrypto.digest(identityToken).prefix(8).map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
        let nickname = provider.prefix(1).uppercased() + provider.dropFirst() + " user"
        counters.signIns += 1
        return headerReply(startFamily(subject: "\(provider):\(hex)", name: nickname, clientID: nil))
    }

    /// `POST /auth/refresh` with the refresh token in the `Authorization-refresh` header (a `Bearer `
    /// prefix is tolerated), or, failing that, in a JSON body as `refreshToken`.
    func headerRefresh(_ request: HTTPRequest) -> HTTPResponse {
        guard let presented = presentedRefreshToken(request) else {
            return AuthReply.error(400, "invalid_request", "the Authorization-refresh header is required")
        }
        switch rotate(presented, clientID: nil) {
        case .success(let tokens): return headerReply(tokens)
        case .failure(let refusal): return AuthReply.error(401, "invalid_grant", refusal.reason)
        }
    }

    private func presentedRefreshToken(_ request: HTTPRequest) -> String? {
        if let header = request.headers["Authorization-refresh"] {
            let parts = header.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return String(parts[1]) }
            if parts.count == 1 { return String(parts[0]) }
            return nil
        }
        if let object = AuthReply.jsonObject(request.body), let token = object["refreshToken"] as? String,
            !token.isEmpty
        {
            return token
        }
        return nil
    }

    /// 200 with the access token in `Authorization`, the refresh token where the options say, and
    /// `{"userId","nickname"}`.
    private func headerReply(_ tokens: IssuedTokens) -> HTTPResponse {
        var headers = HTTPHeaders()
        switch options.authorizationStyle {
        case .bearer: headers["Authorization"] = "Bearer \(tokens.accessToken)"
        case .bare: headers["Authorization"] = tokens.accessToken
        }
        var body: [String: Any] = ["userId": tokens.subject, "nickname": tokens.name]
        switch options.refreshTokenPlacement {
        case .header: headers["Authorization-refresh"] = tokens.refreshToken
        case .body: body["refreshToken"] = tokens.refreshToken
        }
        return AuthReply.json(200, body, headers: headers)
    }
}
