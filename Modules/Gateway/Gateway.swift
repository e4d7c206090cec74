public import Data
public import Domain
import Foundation
import Synchronization

/// A backend-for-frontend (IETF "OAuth 2.0 for Browser-Based Applications" §6.1): the browser holds only
/// an opaque `__Host-` session cookie; the gateway signs the user in as a confidential client, keeps the
/// tokens in the store sealed under the cookie's key, and forwards the single-page app's calls on its
/// routes with `Authorization: Bearer`, refreshing once per generation however many calls arrive.
///
/// `reply(to:)` answers one request: `/bff/login`, `/bff/callback`, `/bff/user`, `/bff/logout`,
/// `/bff/backchannel`, `/healthz`, `/metrics`, the routes (their upstreams' answers streamed as they
/// arrive), and the static files. It never throws: every failure is a status and a JSON error body, and
/// no token, cookie value, code or body is ever logged.
public final class Gateway: Sendable {
    let configuration: GatewayConfiguration
    let dependencies: GatewayDependencies
    let openID: OpenIDAuthenticationGateway
    let logoutTokens: IDTokenVerifier?
    let sessions: GatewaySessions
    /// Each route's upstream client, in the routes' order (asked of the dependencies once, not per call).
    let routeClients: [any HTTPClient]
    /// The session cookies verified so far (their tags checked and keys derived once).
    let cookies = SessionCookieCache(capacity: 10_000)
    let metrics = GatewayMetrics()
    let loginKey: SecretBytes
    /// The requests being handled now, and the work that follows none (a sweep, a back-channel logout's
    /// revocation after its answer): their answers may have been given up on (a stopping server answers
    /// 503), while their work (a refresh whose new tokens are not stored yet) goes on. Sequentially
    /// consistent with ``stopping``: see ``beginWork()``.
    private let handling = Atomic(0)
    /// Set by ``beginStopping()``.
    private let stopping = Atomic(false)

    /// The key of the session cookies' tags, derived from the login key (shared by every instance).
    let cookieTagKey: SecretBytes
    let policy: AuthenticationPolicy
    let activity: SessionActivity

    /// Why a gateway that is to revoke sessions ended without their cookie cannot start: the issuer's
    /// discovery names no revocation endpoint.
    public static let noRevocationEndpoint =
        "revoking sessions ended without their cookie needs the issuer's revocation endpoint (RFC 7009), and its "
        + "discovery names none"

    /// The issuer, as discovery found it.
    public var issuerMetadata: ProviderMetadata { dependencies.metadata }

    /// The session cookie's `SameSite`.
    static let sameSite = "Lax"
    /// The sign-in state cookie's name.
    var loginCookieName: String { configuration.cookieName + "-login" }

    /// Prepares the gateway over an open store: the key of its sign-in cookies is read from the store (made
    /// there by the first instance), so every instance sharing the store can finish a sign-in another began.
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` when the store cannot keep that key.
    public init(_ configuration: GatewayConfiguration, dependencies: GatewayDependencies) async throws(AuthenticationError) {
        self.configuration = configuration
        self.dependencies = dependencies
        routeClients = configuration.routes.map { dependencies.upstreamClients($0.origin) }
        openID = OpenIDAuthenticationGateway(
            metadata: dependencies.metadata, clientID: configuration.clientID, clientSecret: configuration.clientSecret,
            clientAuthMethod: .basic, clients: dependencies.clients, signatures: dependencies.signatures,
            now: dependencies.now)
        logoutTokens = dependencies.metadata.jwksURI.map {
            IDTokenVerifier(jwksURI: $0, clients: dependencies.clients, verifier: dependencies.signatures)
        }
        try Self.checkRevocation(configuration, dependencies.metadata)
        var policy = AuthenticationPolicy()
        // Every user's refreshes count against their own session's limit; all sessions together, a
        // gateway's users, are not one client looping.
        policy.maxRefreshesPerWindowAllAccounts = 10_000_000
        self.policy = policy
        let metrics = metrics
        sessions = GatewaySessions(
            store: dependencies.store,
            gateway: RefreshCounting(base: openID, counted: { metrics.refreshes.withLock { $0 += 1 } }), policy: policy,
            ownerID: dependencies.ownerID, issuer: dependencies.metadata.issuer,
            clientID: configuration.clientID, keepsCopies: configuration.revokeEndedSessions,
            claimantIsGone: dependencies.claimantIsGone, now: dependencies.now,
            onShared: { metrics.refreshWaits.withLock { $0 += 1 } },
            counted: { fromMemory in
                metrics.sessionRead(fromMemory: fromMemory)
            })
        activity = SessionActivity(
            store: dependencies.store, now: dependencies.now, interval: min(60, (configuration.idleTimeout ?? 600) / 10))
        loginKey = try await GatewayKeys.loginKey(in: dependencies.store)
        cookieTagKey = GatewaySeal.derive(loginKey, purpose: "hardtack gateway session cookie tag")
    }

    /// How many requests are being handled now, answered or not, and sweeps and revocations under way: a
    /// stopping process waits for none to be left, so that no refreshed token is lost with it and no store
    /// write or call to the issuer is cut by its exit.
    public var requestsInHand: Int { handling.load(ordering: .sequentiallyConsistent) }

    /// Says the gateway is stopping, before its server stops: no sweep begins after this, and a revocation
    /// pass under way, which looks before each send, starts none once it sees this (what is left waits for
    /// the next sweep, here or at another instance). Calling it again does nothing more.
    public func beginStopping() {
        stopping.store(true, ordering: .sequentiallyConsistent)
    }

    /// Whether ``beginStopping()`` was called.
    var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    /// Counts work that follows no request in ``requestsInHand``, unless the gateway is stopping: then
    /// `false`, and nothing is counted. Counted before the check, as the stop says so before it reads the
    /// count (both sequentially consistent), so that either the stop waits for the work or the work
    /// sees the stop. Each `true` needs an ``endWork()``.
    func beginWork() -> Bool {
        handling.add(1, ordering: .sequentiallyConsistent)
        if isStopping {
            endWork()
            return false
        }
        return true
    }

    /// Ends work counted by ``beginWork()``.
    func endWork() {
        handling.subtract(1, ordering: .sequentiallyConsistent)
    }

    /// Answers `request`, an upstream's answer with its body streaming; logs one JSON line for it once its
    /// head is known (and one more if its stream is cut short).
    public func reply(to request: HTTPRequest) async -> HTTPReply {
        handling.add(1, ordering: .acquiringAndReleasing)
        defer { handling.subtract(1, ordering: .acquiringAndReleasing) }
        let started = ContinuousClock.now
        let route: String
        let reply: HTTPReply
        // Routes never shadow the gateway's own paths: their prefixes end with `/` and are not `/bff/`.
        if let index = configuration.routes.firstIndex(where: { request.path.hasPrefix($0.prefix) }) {
            let forwarded = configuration.routes[index]
            (route, reply) = (
                forwarded.prefix, await forward(request, through: forwarded, client: routeClients[index], started: started)
            )
        } else {
            let (name, response) = await dispatch(request)
            (route, reply) = (name, .complete(response))
        }
        let elapsed = ContinuousClock.now - started
        metrics.record(route: route, status: reply.status, duration: elapsed)
        dependencies.log(RequestLogLine(request: request, route: route, status: reply.status, duration: elapsed).json)
        return reply
    }

    /// Logs and counts a request the HTTP server answered itself, never handing it over (a method that is
    /// no token, a head or body over its limit, one that came as the server stopped): route `refused`.
    public func refused(method: String, target: String, status: Int) {
        metrics.record(route: "refused", status: status, duration: .zero)
        let request = HTTPRequest(method: method, path: target)
        dependencies.log(RequestLogLine(request: request, route: "refused", status: status, duration: .zero).json)
    }

    /// Answers `request` with a complete body: ``reply(to:)``, an upstream's streamed answer read whole
    /// (up to ``GatewayConfiguration/upstreamResponseBytes``, else 502), for callers that want it in
    /// memory.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        switch await reply(to: request) {
        case .complete(let response):
            return response
        case .streamed(let response):
            let limit = configuration.upstreamResponseBytes ?? Int.max
            do throws(HTTPClientError) {
                return HTTPResponse(
                    status: response.status, headers: response.headers, body: try await response.body.collect(upTo: limit))
            } catch {
                return GatewayReply.error(502, "upstream_failed", "the API's answer could not be read whole")
            }
        }
    }

    /// The route a request takes (for logs and metrics) and its answer.
    private func dispatch(_ request: HTTPRequest) async -> (String, HTTPResponse) {
        let path = String(request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        let method = request.method.uppercased()
        switch path {
        case "/bff/login": return ("login", method == "GET" ? await login(request) : Self.methodNotAllowed("GET"))
        case "/bff/callback": return ("callback", method == "GET" ? await callback(request) : Self.methodNotAllowed("GET"))
        case "/bff/user": return ("user", method == "GET" ? await user(request) : Self.methodNotAllowed("GET"))
        case "/bff/logout": return ("logout", method == "GET" ? await logout(request) : Self.methodNotAllowed("GET"))
        case "/bff/backchannel":
            return ("backchannel", method == "POST" ? await backchannel(request) : Self.methodNotAllowed("POST"))
        case "/healthz":
            return ("healthz", method == "GET" || method == "HEAD" ? await health() : Self.methodNotAllowed("GET, HEAD"))
        case "/metrics":
            guard method == "GET" || method == "HEAD" else { return ("metrics", Self.methodNotAllowed("GET, HEAD")) }
            return ("metrics", metrics.exposition(connections: dependencies.connections(), limit: configuration.maxConnections))
        default: break
        }
        if path.hasPrefix("/bff/") { return ("bff", GatewayReply.error(404, "not_found", "no such gateway endpoint")) }
        if let directory = configuration.staticDirectory, method == "GET" || method == "HEAD" {
            return ("static", StaticFiles(directory: directory).response(for: path))
        }
        return ("none", GatewayReply.error(404, "not_found", "nothing is served at this path"))
    }

    static func methodNotAllowed(_ allowed: String) -> HTTPResponse {
        GatewayReply.error(405, "method_not_allowed", "use \(allowed)", headers: [("Allow", allowed)])
    }

    /// The value of query parameter `name` in `target`, decoded, or `nil` (also when it is given twice).
    static func queryParameter(_ name: String, in target: String) -> String? {
        guard let query = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().first
        else { return nil }
        var found: String?
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts[0] == name else { continue }
            if found != nil { return nil }
            found = (parts.count > 1 ? String(parts[1]) : "").replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }
        return found
    }

    /// The session cookie of `request`, if it carries a well-formed one.
    func sessionCookie(_ request: HTTPRequest) -> SessionCookie? {
        cookies.cookie(request.headers, name: configuration.cookieName, tagKey: cookieTagKey)
    }

    /// Whether `request` carries the anti-forgery header every API call must (`X-CSRF: 1`): a browser
    /// sends it only from the app's own pages, never from another site's form or simple request.
    static func hasAntiForgeryHeader(_ request: HTTPRequest) -> Bool {
        request.headers["X-CSRF"] == "1"
    }

    /// The use of `cookie`'s session now: `nil` when it may go on (its last use is then recorded once
    /// `use` succeeded), or the answer when it went unused past the idle timeout (it is signed out then).
    func admit(_ cookie: SessionCookie) async -> (SessionActivity.Use?, HTTPResponse?) {
        guard let timeout = configuration.idleTimeout else { return (nil, nil) }
        let use = await activity.lastUse(cookie, timeout: timeout)
        guard activity.isIdle(use, timeout: timeout) else { return (use, nil) }
        activity.forget(cookie)
        if (try? await sessions.signOut(cookie))?.deletedLocalSession == true { metrics.sessionEnded() }
        return (
            use,
            GatewayReply.error(
                401, "session_ended", "the session went unused too long: sign in again",
                headers: [GatewayReply.clearCookie(configuration.cookieName)])
        )
    }

    /// 403 for a call without `X-CSRF: 1`.
    static var missingAntiForgeryHeader: HTTPResponse {
        GatewayReply.error(403, "csrf_header_required", "API calls through the gateway must carry the header X-CSRF: 1")
    }
}
