import CommandLineKit
import Composition
import Data
import Domain
import Foundation

/// The options every command that talks to the auth server shares: which server, which contract, which
/// client. A session remembers the three it was signed in with; later commands use those, and refuse
/// (touching nothing) when an option or `HARDTACK_SERVER` says otherwise.
struct ServerOptions: ParsableArguments {
    /// The variable that names the server when `--server` is not given.
    static let serverVariable = "HARDTACK_SERVER"

    /// `--server URL`, if given (else the session or the environment names it).
    @Option(
        "--server", value: "URL",
        help: "The auth server's base URL, such as http://127.0.0.1:8080 (default: the session's, else "
            + "$HARDTACK_SERVER).")
    var server: String?
    /// `--style oauth|header`, if given.
    @Option(
        "--style", value: "oauth|header",
        help: "The server's contract: OAuth 2.0 token endpoint, or tokens in Authorization headers (default: the "
            + "session's, else oauth).",
        invalidValue: "--style must be oauth or header", convert: { ServerContract(rawValue: $0) })
    var contract: ServerContract?
    /// `--client-id ID`, if given.
    @Option(
        "--client-id", value: "ID",
        help: "The OAuth client id (default: the session's, else \(AppConfiguration.defaultClientID)).",
        allowsEmpty: false)
    var clientID: String?

    /// The app configuration for `store` and the server: these options, else the stored session's
    /// `origin`, else the environment and the defaults.
    /// - Throws: ``CommandFailure/usage(_:)`` when no server is named, it is not an http(s) URL, or an
    ///   option contradicts the session's origin.
    func configuration(store: StoreConfiguration, origin: SessionOrigin?, _ context: CommandContext)
        throws(CommandFailure) -> AppConfiguration
    {
        let named = server.map { ("--server", $0) } ?? context.environment[Self.serverVariable].flatMap {
            $0.isEmpty ? nil : (Self.serverVariable, $0)
        }
        guard let text = named?.1 ?? origin?.server else {
            throw context.usage("no server: give --server URL or set \(Self.serverVariable)")
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw context.usage("\(named?.0 ?? "the session's server") must be an http:// or https:// URL")
        }
        let stored = origin.flatMap { ServerContract(rawValue: $0.contract) }
        var configuration = AppConfiguration(
            store: store, server: .remote(url), contract: contract ?? stored ?? .oauth,
            clientID: clientID ?? origin?.clientID ?? AppConfiguration.defaultClientID)
        if let origin {
            if let (source, _) = named, AppConfiguration.canonical(url) != origin.server {
                throw contradiction(source, "at \(origin.server)", context)
            }
            if contract != nil, configuration.contract.rawValue != origin.contract {
                throw contradiction("--style", "with the \(origin.contract) contract", context)
            }
            if clientID != nil, configuration.clientID != origin.clientID {
                throw contradiction("--client-id", "as client \(origin.clientID)", context)
            }
        }
        configuration.onWait = WaitMessage.printer(server: url)
        return configuration
    }

    private func contradiction(_ source: String, _ stored: String, _ context: CommandContext) -> CommandFailure {
        context.usage(
            "the session was signed in \(stored); \(source) says otherwise, so nothing was done. Leave \(source) "
                + "out to use the session's, or sign in again")
    }
}
