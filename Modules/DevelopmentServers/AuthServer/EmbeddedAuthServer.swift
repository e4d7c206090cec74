public import Data
import Domain
import Foundation

/// An in-process auth server that implements two backend contracts faithfully, for the demo and the
/// tests: OAuth 2.0 (RFC 6749 password and refresh-token grants, RFC 7009 revocation) and a
/// header-style API that returns tokens in `Authorization` and `Authorization-refresh` headers.
///
/// Endpoints:
/// - `POST /oauth/token`, `POST /oauth/revoke` (form-encoded);
/// - `POST /auth/signin`, `POST /auth/signin/{provider}`, `POST /auth/refresh` (JSON and headers);
/// - `GET /api/me` (a Bearer access token), for both contracts;
/// - `GET /debug/stats`: the ``counters`` as JSON. Development only: it exists so that another process
///   can read the counts through `hardtack serve`; a real backend has nothing like it.
///
/// Access tokens are HS256 JWTs under a random per-instance key. Refresh tokens are random, stored only
/// as BLAKE2b digests, rotated on every use; presenting a used one revokes its whole family (every
/// refresh token and access token descended from the same sign-in). Time comes from ``clock``. Nothing
/// is logged, and no `description` shows a token or password.
public actor EmbeddedAuthServer {
    /// The server's accounts, clients, providers and token settings.
    public nonisolated let options: AuthServerOptions
    /// The clock that decides expiry; advance it instead of sleeping.
    public nonisolated let clock: ServerClock
    /// What the server has done so far.
    public internal(set) var counters = AuthServerCounters()
    /// The failure being simulated, ``SimulatedFailure/none`` normally.
    public private(set) var failure = SimulatedFailure.none

    /// The JWT signing key: random, per instance, wiped when the server goes.
    let signingKey: SecretBytes
    /// Refresh tokens by the BLAKE2b digest of their text.
    var refreshTokens: [[UInt8]: RefreshTokenRecord] = [:]
    /// Families revoked by reuse detection or by `/oauth/revoke`.
    var revokedFamilies: Set<String> = []
    /// Authorization codes issued and not yet exchanged, by code.
    var authorizationCodes: [String: PendingAuthorizationCode] = [:]
    /// The keys that sign ID tokens (made on first use).
    var idTokenSigner = IDTokenSigner()
    /// Device authorizations issued and not yet exchanged, by device code.
    var deviceCodes: [String: PendingDeviceCode] = [:]
    /// Seconds between device-code polls (RFC 8628 §3.2 `interval`).
    var devicePollingInterval: TimeInterval = 5

    /// Creates a server with a fresh random signing key.
    public init(options: AuthServerOptions = AuthServerOptions(), clock: ServerClock = ServerClock()) {
        self.init(options: options, clock: clock, signingKey: AuthCrypto.randomKey())
    }

    /// Creates a server that signs with `signingKey` (32 bytes), so tests can forge tokens.
    init(options: AuthServerOptions, clock: ServerClock, signingKey: SecretBytes) {
        self.options = options
        self.clock = clock
        self.signingKey = signingKey
    }

    /// Makes every later request fail as `failure` says, until it is set back to ``SimulatedFailure/none``.
    public func respondWith(_ failure: SimulatedFailure) {
        self.failure = failure
    }

    /// Answers `request` as the real server would. Never throws and never crashes on bad input.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        switch failure {
        case .serverError, .down:
            return AuthReply.error(503, "temporarily_unavailable", "the server is unavailable")
        case .garbage:
            let html = "<html><head><title>Sign in to Wi-Fi</title></head><body>Please accept the terms.</body></html>"
            return HTTPResponse(
                status: 200, headers: HTTPHeaders([("Content-Type", "text/html; charset=utf-8")]),
                body: Data(html.utf8))
        case .none:
            break
        }
        let response = route(request)
        if response.status == 401 { counters.unauthorized += 1 }
        return response
    }

    /// What ``EmbeddedAuthServerTransport`` sends through: ``handle(_:)``, or a connection failure when
    /// the server is simulated ``SimulatedFailure/down``. One actor call, so the switch cannot change
    /// between the check and the answer.
    func exchange(_ request: HTTPRequest) throws(HTTPClientError) -> HTTPResponse {
        if failure == .down { throw .cannotConnect("connection refused") }
        return handle(request)
    }

    /// Dispatches on the path (without its query), then on the method.
    private func route(_ request: HTTPRequest) -> HTTPResponse {
        let path = String(request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
        let method = request.method
        func only(_ allowed: String, _ handler: () -> HTTPResponse) -> HTTPResponse {
            method == allowed ? handler() : AuthReply.methodNotAllowed(allow: allowed)
        }
        switch path {
        case "/oauth/token": return only("POST") { tokenEndpoint(request) }
        case "/oauth/revoke": return only("POST") { revocationEndpoint(request) }
        case "/auth/signin": return only("POST") { passwordSignIn(request) }
        case "/auth/refresh": return only("POST") { headerRefresh(request) }
        case "/api/me": return only("GET") { me(request) }
        case "/debug/stats": return only("GET") { stats() }
        case "/.well-known/openid-configuration": return only("GET") { discoveryDocument(request) }
        case "/oauth/jwks": return only("GET") { jsonWebKeySet() }
        case "/oauth/authorize": return authorizationEndpoint(request)
        case "/oauth/device_authorization": return only("POST") { deviceAuthorizationEndpoint(request) }
        case "/oauth/device": return deviceVerificationPage(request)
        default:
            let prefix = "/auth/signin/"
            if path.hasPrefix(prefix) {
                let provider = String(path.dropFirst(prefix.count))
                if options.identityProviders.contains(provider) {
                    return only("POST") { providerSignIn(request, provider: provider) }
                }
            }
            return AuthReply.notFound()
        }
    }

    /// `GET /api/me`: the token's subject and name, or 401 `invalid_token`.
    private func me(_ request: HTTPRequest) -> HTTPResponse {
        counters.meCalls += 1
        guard let token = accessToken(from: request.headers["Authorization"]) else {
            return AuthReply.invalidToken("a Bearer access token is required")
        }
        switch validate(accessToken: token) {
        case .success(let claims): return AuthReply.json(200, ["sub": claims.sub, "name": claims.name])
        case .failure(let refusal): return AuthReply.invalidToken(refusal.reason)
        }
    }

    /// The token in an `Authorization` value: `Bearer <token>` (scheme in any case), or a bare token
    /// when the server writes bare tokens itself.
    private func accessToken(from header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", omittingEmptySubsequences: true)
        if parts.count == 2, parts[0].lowercased() == "bearer" { return String(parts[1]) }
        if parts.count == 1, options.authorizationStyle == .bare { return String(parts[0]) }
        return nil
    }

    /// `GET /debug/stats`: the counters as JSON (development only).
    private func stats() -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = (try? encoder.encode(counters)) ?? Data()
        return HTTPResponse(
            status: 200,
            headers: HTTPHeaders([("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store")]),
            body: body)
    }
}

extension EmbeddedAuthServer: CustomStringConvertible {
    /// The configuration in outline; no key, token or password.
    public nonisolated var description: String {
        "EmbeddedAuthServer(users: \(options.users.count), clients: \(options.clientIDs.sorted()), "
            + "providers: \(options.identityProviders.sorted()), key redacted)"
    }
}
