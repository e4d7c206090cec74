public import Domain
public import Foundation

/// The header-style contract of the seeds' backends: tokens in the `Authorization` and
/// `Authorization-refresh` headers (the refresh token possibly in the JSON body as `refreshToken`),
/// the user in the body as `userId` and `nickname`. No lifetime is given, so expiry is learnt from a
/// 401; tokens are never parsed.
public struct HeaderAuthenticationGateway: AuthenticationGateway {
    private let exchange: AuthServerExchange
    private let now: @Sendable () -> Date

    /// Creates a gateway talking to the server behind `http`; `clientID` is sent on revocation.
    public init(http: any HTTPClient, clientID: String, now: @escaping @Sendable () -> Date) {
        exchange = AuthServerExchange(http: http, clientID: clientID)
        self.now = now
    }

    /// Signs in at `/auth/signin`; the tokens come back in the reply's headers.
    public func signIn(_ credentials: Credentials) async throws(AuthenticationError) -> Session {
        let response: HTTPResponse
        switch credentials {
        case .password(let username, let password):
            response = try await exchange.postJSON(
                "/auth/signin", PasswordSignInRequestDTO(username: username, password: password.revealedString() ?? ""))
        case .identityToken(let provider, let token):
            guard provider.utf8.allSatisfy({ $0.isProviderNameByte }), !provider.isEmpty else {
                throw .invalidCredentials("the provider name may hold only lowercase letters, digits and '-'")
            }
            response = try await exchange.postJSON(
                "/auth/signin/\(provider)", IdentitySignInRequestDTO(identityToken: token.revealedString() ?? ""))
        case .grant:
            throw .unsupported("the header contract signs in with a password or an identity token only")
        }
        guard response.status == 200 else { throw exchange.signInFailure(response) }
        let body = try ResponseBody.decode(HeaderSignInBodyDTO.self, from: response)
        let tokens = try HeaderTokens(response: response, body: body, receivedAt: now())
        guard let refreshToken = tokens.refreshToken else {
            throw .invalidResponse("no refresh token in the Authorization-refresh header or the body")
        }
        guard let userID = body.userId?.text, !userID.isEmpty else { throw .invalidResponse("no userId in the reply") }
        return Session(
            accessToken: tokens.accessToken, refreshToken: refreshToken,
            user: User(id: userID, name: body.nickname ?? ""), method: credentials.method)
    }

    /// Presents the refresh token for a new pair, in the header-style contract.
    public func refresh(_ session: Session) async throws(AuthenticationError) -> TokenRefresh {
        var headers = HTTPHeaders()
        headers["Authorization-refresh"] = session.refreshToken.value.revealedString()
        headers["Accept"] = "application/json"
        let response = try await exchange.send(HTTPRequest(method: "POST", path: "/auth/refresh", headers: headers))
        guard response.status == 200 else { throw exchange.refreshFailure(response, bareUnauthorizedEndsSession: true) }
        let body: HeaderSignInBodyDTO? =
            response.body.isEmpty ? nil : try ResponseBody.decode(HeaderSignInBodyDTO.self, from: response)
        return try HeaderTokens(response: response, body: body, receivedAt: now()).refresh
    }

    /// Revokes the refresh token at the server.
    public func revoke(_ refreshToken: RefreshToken) async throws(AuthenticationError) {
        try await exchange.revoke(refreshToken)
    }
}

extension UInt8 {
    /// Whether the byte may appear in a provider name used as a path segment.
    fileprivate var isProviderNameByte: Bool {
        (0x61...0x7A).contains(self) || (0x30...0x39).contains(self) || self == 0x2D
    }
}
