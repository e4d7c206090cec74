public import Domain
public import Foundation

/// What a gateway is: the issuer it signs users in at and the confidential client it is there, the
/// origin the browser sees, the routes it forwards, and its bounds.
public struct GatewayConfiguration: Sendable {
    /// The issuer's URL (discovered at start).
    public var issuer: URL
    /// This gateway's client id at the issuer.
    public var clientID: String
    /// This gateway's client secret (sent with HTTP Basic authentication, `client_secret_basic`).
    public var clientSecret: SecretBytes
    /// The origin the browser sees (`https://app.example`): cookies are set for it and the redirect URI is
    /// its `/bff/callback`.
    public var publicOrigin: URL
    /// The routes forwarded with the session's access token.
    public var routes: [GatewayRoute]
    /// The scope asked for at sign-in.
    public var scope: String
    /// The directory of a single-page app's files served at `/`, if any.
    public var staticDirectory: String?
    /// The session cookie's name (it must start with `__Host-`).
    public var cookieName: String
    /// How long a session may go unused before it ends, in seconds; `nil` for no idle limit.
    public var idleTimeout: TimeInterval?
    /// Seconds an upstream may take to answer before the call fails with 504, and then to send each next
    /// part of its body before the answer is cut short (a long download that keeps arriving is not cut).
    public var upstreamTimeout: TimeInterval
    /// The largest upstream answer forwarded, in bytes, or `nil` for no limit: an answer whose
    /// `Content-Length` says more is 502, one that sends more is cut short there. Either way an answer
    /// streams through the gateway, which holds at most 256 KiB of each at a time.
    public var upstreamResponseBytes: Int?
    /// How often a running gateway sweeps the store of expired and idle sessions and old logout tokens, in
    /// seconds (a tenth either way at random; the first sweep comes within 30 s of the start; each removes at
    /// most 500 of each kind; every instance sweeps, and two sweeps may overlap harmlessly).
    public var sweepInterval: TimeInterval = 300
    /// How many connections a gateway on a PostgreSQL store reads through (writes take the first; a store
    /// whose key is a passphrase gets one, since each connection unlocks it). Each connection re-checks its
    /// group's rows after another connection's write (a pass over them: 24 ms at 5,000 rows, 123 ms at
    /// 25,000, measured here), so more than one pays only while the store holds few sessions.
    public var storeConnections = 1
    /// How many event loops serve, a thread each: every loop accepts its share of the connections, and runs
    /// their requests and the upstream calls they make. One per core (the default) serves the most.
    public var threads = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// How many browser connections are served at once, each event loop its share: a loop at its share
    /// accepts no more until one of its connections ends, and the kernel's queue holds the ones that wait.
    public var maxConnections = 1024
    /// Seconds a browser connection may stay quiet, and may take to send a request's head (counted from its
    /// start or the end of the request before it on the connection), before it is dropped.
    public var connectionTimeout = 30
    /// Whether each session's refresh token is also kept under the store's key alone (not only under its
    /// cookie's key), so that a session ended without its cookie (back-channel logout, an operator's
    /// revoke, the idle sweep) has its refresh token revoked at the issuer. Off by default: with it, whoever
    /// holds the store's key and its database can use every session's refresh token.
    public var revokeEndedSessions = false

    /// Creates a configuration.
    public init(
        issuer: URL, clientID: String, clientSecret: SecretBytes, publicOrigin: URL, routes: [GatewayRoute],
        scope: String = "openid profile offline_access", staticDirectory: String? = nil,
        cookieName: String = "__Host-hardtack", idleTimeout: TimeInterval? = 8 * 3600, upstreamTimeout: TimeInterval = 30,
        upstreamResponseBytes: Int? = nil
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.publicOrigin = publicOrigin
        self.routes = routes
        self.scope = scope
        self.staticDirectory = staticDirectory
        self.cookieName = cookieName
        self.idleTimeout = idleTimeout
        self.upstreamTimeout = upstreamTimeout
        self.upstreamResponseBytes = upstreamResponseBytes
    }

    /// The public origin as text, without a trailing `/`.
    var origin: String {
        var text = publicOrigin.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// The redirect URI registered at the issuer: the public origin's `/bff/callback`.
    public var redirectURI: String { origin + "/bff/callback" }
}
