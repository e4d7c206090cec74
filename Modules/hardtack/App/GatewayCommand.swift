import CommandLineKit

/// `hardtack gateway`: a backend-for-frontend that keeps browser users' tokens on the server.
struct GatewayCommand: Command {
    static let configuration = CommandConfiguration(
        name: "gateway",
        abstract: "Serve a single-page app's sign-in and API calls, keeping its users' tokens on the server (a BFF).",
        usage: "[serve] [OPTIONS]  |  sessions [--user SUB] [--json]  |  revoke --user SUB | --session SID",
        discussion: discussion,
        subcommands: [GatewayServeCommand.self, GatewaySessionsCommand.self, GatewayRevokeCommand.self],
        defaultSubcommand: GatewayServeCommand.self, exitStatuses: ExitStatus.appTable)

    /// What the gateway does, for its help and `gateway serve --help` alike.
    static let discussion: [String] = [
        "The browser holds only an opaque __Host- session cookie; the gateway signs users in at the issuer as a "
            + "confidential client (authorization code, PKCE, client_secret_basic), keeps their tokens in the store "
            + "sealed under a key only their cookie gives, and forwards the app's calls on each --route with "
            + "Authorization: Bearer, refreshing once per token generation. Endpoints: GET /bff/login?returnUrl=, "
            + "/bff/callback, /bff/user, /bff/logout?sid=, POST /bff/backchannel, GET /healthz, /metrics. API calls "
            + "and /bff/user need the header X-CSRF: 1.",
        "Register ORIGIN/bff/callback as the client's redirect URI, ORIGIN/ as its post-logout redirect URI (and "
            + "ORIGIN/bff/backchannel for back-channel logout). Each setting may also come from the environment, as "
            + "containers expect: HARDTACK_GATEWAY_ISSUER, _CLIENT_ID, _CLIENT_SECRET_FILE, _LISTEN, "
            + "_PUBLIC_ORIGIN, _ROUTES (PREFIX=UPSTREAM, separated by spaces), _SCOPE, _STATIC, _UPSTREAM_TIMEOUT, "
            + "_UPSTREAM_RESPONSE_BYTES, _IDLE_TIMEOUT, _SWEEP_INTERVAL, _STORE_CONNECTIONS, _THREADS, _REVOKE_ENDED_SESSIONS (1 or 0); an option given wins.",
        "Upstream answers stream to the browser as they arrive (a slow browser holds the upstream back; one that "
            + "leaves stops it); request bodies are read whole, up to 1 MiB (413 above).",
        "Every 5 minutes (--sweep-interval) it sweeps the store of sessions whose refresh token expired or that were idle past "
            + "--idle-timeout, and of old logout tokens. `hardtack gateway sessions` lists the sessions (never a token) "
            + "and `hardtack gateway revoke` ends them on every instance. A session ended without its cookie (back-channel "
            + "logout, revoke, idle) has its refresh token revoked at the issuer only with --revoke-ended-sessions "
            + "(by the next sweep of a running gateway, or at once for back-channel logout).",
        "It prints `listening on http://HOST:PORT` once it serves, one JSON line per request on standard error "
            + "(never a token, a cookie or a code), and on SIGTERM or SIGINT stops accepting, lets what is in "
            + "flight finish (10 s at most, then 503), lets work still under way end (a refresh storing its tokens, a call "
            + "waiting on its upstream: 60 s at most) and exits 0; "
            + "the signal again, a second or more later, stops at once (exit 130, saying what was cut). Give a "
            + "container's stop 75 s before its SIGKILL.",
    ]

    /// The server's options, read here (before any subcommand) for `hardtack gateway OPTIONS`.
    @OptionGroup var serve: GatewayServeOptions
    /// The store.
    @OptionGroup(title: "Store options") var store: StoreArguments
}
