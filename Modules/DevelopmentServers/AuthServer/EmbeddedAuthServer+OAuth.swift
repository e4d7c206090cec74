import Data
import Foundation

/// The OAuth 2.0 contract: `POST /oauth/token` (RFC 6749 §4.3 and §6) and `POST /oauth/revoke`
/// (RFC 7009).
extension EmbeddedAuthServer {
    /// `POST /oauth/token` with `grant_type=password` or `grant_type=refresh_token`.
    func tokenEndpoint(_ request: HTTPRequest) -> HTTPResponse {
        let form: [String: String]
        switch formParameters(request) {
        case .success(let parameters): form = parameters
        case .failure(let refusal): return AuthReply.error(400, "invalid_request", refusal.reason)
        }
        guard let grantType = form["grant_type"] else {
            return AuthReply.error(400, "invalid_request", "grant_type is required")
        }
        guard form["client_id"] != nil || request.headers["Authorization"] != nil else {
            return AuthReply.error(400, "invalid_request", "client_id is required")
        }
        let clientID: String
        switch authenticatedClient(request, form) {
        case .success(let client): clientID = client
        case .failure(let refusal): return AuthReply.error(401, "invalid_client", refusal.reason)
        }
        switch grantType {
        case "password":
            guard let username = form["username"], let password = form["password"] else {
                return AuthReply.error(400, "invalid_request", "username and password are required")
            }
            guard let user = authenticate(username: username, password: password) else {
                return AuthReply.error(400, "invalid_grant", "the username or password is wrong")
            }
            counters.signIns += 1
            return tokenReply(startFamily(subject: user.username, name: user.displayName, clientID: clientID))
        case "refresh_token":
            guard let refreshToken = form["refresh_token"] else {
                return AuthReply.error(400, "invalid_request", "refresh_token is required")
            }
            switch rotate(refreshToken, clientID: clientID) {
            case .success(let tokens): return tokenReply(tokens)
            case .failure(let refusal): return AuthReply.error(400, "invalid_grant", refusal.reason)
            }
        case "urn:ietf:params:oauth:grant-type:device_code":
            return exchangeDeviceCode(form, clientID: clientID, issuer: issuer(of: request))
        case "authorization_code":
            return exchangeAuthorizationCode(form, clientID: clientID, issuer: issuer(of: request))
        default:
            return AuthReply.error(
                400, "unsupported_grant_type", "only password, refresh_token and authorization_code grants are supported")
        }
    }

    /// `POST /oauth/revoke`: revokes the family of the token; 200 whether or not the token was known.
    func revocationEndpoint(_ request: HTTPRequest) -> HTTPResponse {
        let form: [String: String]
        switch formParameters(request) {
        case .success(let parameters): form = parameters
        case .failure(let refusal): return AuthReply.error(400, "invalid_request", refusal.reason)
        }
        guard let token = form["token"] else { return AuthReply.error(400, "invalid_request", "token is required") }
        if form["client_id"] != nil || request.headers["Authorization"] != nil,
            case .failure(let refusal) = authenticatedClient(request, form)
        {
            return AuthReply.error(401, "invalid_client", refusal.reason)
        }
        // `token_type_hint` only speeds up a lookup (RFC 7009 §2.1); both kinds are searched anyway.
        if revokeFamily(of: token) { counters.revocations += 1 }
        return HTTPResponse(status: 200, headers: HTTPHeaders([("Cache-Control", "no-store")]))
    }

    /// The RFC 6749 §5.1 success reply.
    func tokenReply(_ tokens: IssuedTokens) -> HTTPResponse {
        AuthReply.json(
            200,
            [
                "access_token": tokens.accessToken, "token_type": "Bearer", "expires_in": tokens.expiresIn,
                "refresh_token": tokens.refreshToken, "scope": options.scope,
            ])
    }

    /// The form parameters of a token or revocation request, or why it is an `invalid_request`.
    private func formParameters(_ request: HTTPRequest) -> Result<[String: String], Refusal> {
        guard FormURLEncoded.isFormContentType(request.headers["Content-Type"]) else {
            return .failure(Refusal("the body must be application/x-www-form-urlencoded"))
        }
        guard let form = FormURLEncoded.parse(request.body) else {
            return .failure(Refusal("the body is not valid form data or repeats a parameter"))
        }
        return .success(form)
    }
}
