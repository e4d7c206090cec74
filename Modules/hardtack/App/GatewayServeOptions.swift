import CommandLineKit

/// The options of the gateway's server (`hardtack gateway [serve]`), declared once for the group and its
/// `serve` command.
struct GatewayServeOptions: ParsableArguments {
    /// `--issuer URL`.
    @Option("--issuer", value: "URL", help: "The OpenID Connect issuer to sign users in at.", allowsEmpty: false)
    var issuer: String?
    /// `--client-id ID`.
    @Option("--client-id", value: "ID", help: "The gateway's client id at the issuer.", allowsEmpty: false)
    var clientID: String?
    /// `--client-secret-file FILE`.
    @Option(
        "--client-secret-file", value: "FILE",
        help: "A file (mode 0600) whose first line is the client secret (never on the command line).",
        allowsEmpty: false)
    var clientSecretFile: String?
    /// `--listen HOST:PORT`.
    @Option(
        "--listen", value: "HOST:PORT", help: "The address to serve on (default: 127.0.0.1:8443; port 0 picks a free one).",
        allowsEmpty: false)
    var listen: String?
    /// `--public-origin ORIGIN`.
    @Option(
        "--public-origin", value: "ORIGIN",
        help: "The origin the browser sees, such as https://app.example (behind a TLS proxy) or http://localhost:8443.",
        allowsEmpty: false)
    var publicOrigin: String?
    /// `--route PREFIX=UPSTREAM`, repeatable.
    @Option(
        "--route", value: "PREFIX=UPSTREAM",
        help: "Forward calls under PREFIX to UPSTREAM with the session's token, such as /api/=https://api.example/v1/; "
            + "repeat for more. Only these are forwarded.", allowsEmpty: false)
    var routes: [String]
    /// `--scope SCOPES`.
    @Option("--scope", value: "SCOPES", help: "The scope asked for (default: \"openid profile offline_access\").", allowsEmpty: false)
    var scope: String?
    /// `--static DIR`.
    @Option("--static", value: "DIR", help: "Serve a single-page app's files from DIR at /.", allowsEmpty: false)
    var staticDirectory: String?
    /// `--upstream-timeout SECONDS`.
    @Option(
        "--upstream-timeout", value: "SECONDS", help: "How long an upstream may take to answer before the call is 504, and then to send more of its answer "
            + "before it is cut short (default: 30).",
        range: 1...600, invalidValue: "--upstream-timeout takes a whole number of seconds from 1 to 600")
    var upstreamTimeout: Int?
    /// `--upstream-response-bytes BYTES`.
    @Option(
        "--upstream-response-bytes", value: "BYTES",
        help: "The most bytes of one upstream answer passed on (default: no limit): one that declares more is 502, "
            + "one that sends more is cut short. Answers stream through; at most 256 KiB of each is held at a time.",
        range: 1...(1 << 50), invalidValue: "--upstream-response-bytes takes a whole number of bytes from 1")
    var upstreamResponseBytes: Int?
    /// `--idle-timeout SECONDS`.
    @Option(
        "--idle-timeout", value: "SECONDS",
        help: "End a session unused for this long (default: 28800, eight hours; 0 for no limit). A session never "
            + "outlives its refresh token.", range: 0...31_536_000,
        invalidValue: "--idle-timeout takes a whole number of seconds from 0 to 31536000")
    var idleTimeout: Int?
    /// `--sweep-interval SECONDS`.
    @Option(
        "--sweep-interval", value: "SECONDS",
        help: "How often to sweep the store of expired and idle sessions, old logout tokens and the revocation copies "
            + "of ended sessions (default: 300, a tenth either way at random).", range: 1...86_400,
        invalidValue: "--sweep-interval takes a whole number of seconds from 1 to 86400")
    var sweepInterval: Int?
    /// `--store-connections N`.
    @Option(
        "--store-connections", value: "N",
        help: "Read a PostgreSQL store through N connections (default: 1; writes take the first). More serve more "
            + "calls at once, but each re-checks its group of rows after another's write, which costs a pass over "
            + "the store's sessions: worth it only while the store holds few.", range: 1...64,
        invalidValue: "--store-connections takes a whole number from 1 to 64")
    var storeConnections: Int?
    /// `--threads N`.
    @Option(
        "--threads", value: "N",
        help: "Serve on N event loops, a thread each (default: one per core; never more than --max-connections). Each "
            + "accepts its share of the connections and runs their calls to the end, its upstream calls too.", range: 1...256,
        invalidValue: "--threads takes a whole number from 1 to 256")
    var threads: Int?
    /// `--max-connections N`.
    @Option(
        "--max-connections", value: "N",
        help: "Serve at most N browser connections at once (default: 1024), each event loop its share: one the kernel "
            + "gives a loop at its share waits in that loop's queue. The gateway raises its soft limit on open files to "
            + "fit them, their upstream calls and the connections kept for reuse, up to the hard limit.", range: 1...65_536,
        invalidValue: "--max-connections takes a whole number from 1 to 65536")
    var maxConnections: Int?
    /// `--connection-timeout SECONDS`.
    @Option(
        "--connection-timeout", value: "SECONDS",
        help: "Drop a browser connection quiet for this long, or this late with a request's head (default: 30); a "
            + "request waiting on its upstream is bounded by --upstream-timeout instead. Keep a proxy's idle "
            + "connections to the gateway shorter-lived than this.",
        range: 1...3_600, invalidValue: "--connection-timeout takes a whole number of seconds from 1 to 3600")
    var connectionTimeout: Int?
    /// `--revoke-ended-sessions`.
    @Flag(
        "--revoke-ended-sessions",
        help: "Also keep each session's refresh token under the store's key alone, so that sessions ended without "
            + "their cookie (back-channel logout, `gateway revoke`, the idle sweep) are revoked at the issuer. Off by "
            + "default: with it, whoever holds the store's key and database can use every session's refresh token.")
    var revokeEndedSessions: Bool
    /// `--demo`.
    @Flag(
        "--demo",
        help: "Try it: the gateway in front of the embedded auth server, serving a small page on loopback, "
            + "everything in a temporary directory deleted on exit; the other options are not used.")
    var demo: Bool

    /// Refuses the server's options when a parent group read them before another gateway command's name
    /// (`hardtack gateway --issuer X sessions`), which would otherwise ignore them.
    static func refuseBefore(_ command: String, _ context: CommandContext) throws(CommandFailure) {
        let given = context.values.givenNames(of: GatewayServeOptions.self)
        guard let first = given.first else { return }
        throw .usage("\(first) is an option of the gateway's server (`hardtack gateway [serve]`), not of `gateway \(command)`")
    }
}
