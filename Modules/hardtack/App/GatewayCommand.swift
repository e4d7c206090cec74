import CommandLineKit
import Composition
import Data
import Domain
import Foundation
import DevelopmentComposition
import Gateway

/// `hardtack gateway`: a backend-for-frontend that keeps browser users' tokens on the server.
struct GatewayCommand: HardtackCommand {
    static let configuration = CommandConfiguration(
        name: "gateway",
        abstract: "Serve a single-page app's sign-in and API calls, keeping its users' tokens on the server (a BFF).",
        discussion: [
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
                + "_UPSTREAM_RESPONSE_BYTES, _IDLE_TIMEOUT; an option given wins.",
            "Upstream answers stream to the browser as they arrive (a slow browser holds the upstream back; one that "
                + "leaves stops it); request bodies are read whole, up to 1 MiB (413 above).",
            "It prints `listening on http://HOST:PORT` once it serves, one JSON line per request on standard error "
                + "(never a token, a cookie or a code), and on SIGTERM or SIGINT stops accepting, lets what is in "
                + "flight finish (10 s at most, then 503), lets a refresh under way store its tokens (30 s at most) and exits 0.",
        ],
        exitStatuses: ExitStatus.appTable)

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
    /// `--demo`.
    @Flag(
        "--demo",
        help: "Try it: the gateway in front of the embedded auth server, serving a small page on loopback, "
            + "everything in a temporary directory deleted on exit; the other options are not used.")
    var demo: Bool
    /// The store.
    @OptionGroup(title: "Store options") var store: StoreArguments

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        if demo { return try await runDemo() }
        let settings = try GatewaySettings(self, context)
        let storeConfiguration = try store.configuration(context)
        let server: GatewayServer
        do throws(GatewayStartFailure) {
            server = try await GatewayServer(
                settings.configuration, store: storeConfiguration, host: settings.host, port: settings.port,
                log: { line in Console.log(line) })
        } catch {
            switch error {
            case .store(let failure): throw .store(failure)
            case .discovery(let failure):
                let reason: String
                switch failure {
                case .temporarilyUnavailable(let why), .invalidResponse(let why), .unsupported(let why): reason = why
                case .rejected(let status, let why): reason = "HTTP \(status): \(why)"
                default: reason = failure.description
                }
                throw .finding(
                    ExitStatus(failure),
                    "the issuer's discovery document (\(settings.configuration.issuer.absoluteString)"
                        + "/.well-known/openid-configuration) could not be read: \(reason). Check --issuer and that "
                        + "the issuer is up; nothing was started and no store was made.")
            case .auth(let failure): throw .auth(failure)
            case .listen(let reason): throw .finding(.failure, "\(reason). Choose another --listen address.")
            }
        }
        let metadata = server.gateway.issuerMetadata
        Console.error(
            "issuer \(metadata.issuer): sign-out at the issuer \(metadata.endSessionEndpoint == nil ? "not offered" : "offered"), "
                + "back-channel logout \(metadata.backchannelLogoutSupported ? "offered" : "not offered")")
        Console.print("listening on \(server.listeningURL)")
        await Signals.waitForTermination()
        await server.stop(grace: .seconds(10))
    }

    /// `--demo`: starts ``GatewayDemo`` and says how to use it.
    private func runDemo() async throws(CommandFailure) {
        let demo: GatewayDemo
        do throws(DevelopmentServerError) {
            demo = try await GatewayDemo(log: { line in Console.log(line) })
        } catch {
            throw .finding(.failure, "the gateway demo could not start: \(error.message)")
        }
        Console.print("listening on \(demo.gateway.listeningURL)")
        Console.print(
            "Open \(demo.address) in a browser and sign in as alice / wonderland; the page holds only a session "
                + "cookie, and its API calls go to \(demo.authServer.baseURL.absoluteString)/api/me with the token "
                + "the gateway adds. Stop with Ctrl-C (the temporary store is deleted).")
        await Signals.waitForTermination()
        await demo.stop()
    }
}
