import CommandLineKit
import Composition
import Data
import Foundation

/// The options every command that talks to the auth server shares: which server, which contract, which
/// client.
struct ServerOptions: OptionGroup {
    /// The variable that names the server when `--server` is not given.
    static let serverVariable = "HARDTACK_SERVER"

    /// `--server URL`.
    static let server = Option<String>(
        "--server", value: "URL",
        help: "The auth server's base URL, such as http://127.0.0.1:8080 (default: $HARDTACK_SERVER).")
    /// `--style oauth|header`.
    static let style = Option<ServerContract>(
        "--style", value: "oauth|header",
        help: "The server's contract: OAuth 2.0 token endpoint, or tokens in Authorization headers (default: oauth).",
        invalidValue: "--style must be oauth or header", convert: { ServerContract(rawValue: $0) })
    /// `--client-id ID`.
    static let clientID = Option<String>(
        "--client-id", value: "ID", help: "The OAuth client id (default: \(AppConfiguration.defaultClientID)).",
        allowsEmpty: false)

    static let declarations: [any ArgumentDeclaring] = [server, style, clientID]

    /// `--server`, if given (else the environment names it).
    let server: String?
    /// The contract.
    let contract: ServerContract
    /// The OAuth client id.
    let clientID: String

    init(from values: ParsedValues) throws(UsageError) {
        server = try values.value(Self.server)
        contract = try values.value(Self.style) ?? .oauth
        clientID = try values.value(Self.clientID) ?? AppConfiguration.defaultClientID
    }

    /// The app configuration for `store` and the server these options or the environment name.
    /// - Throws: ``CommandFailure/usage(_:)`` when no server is named or it is not an http(s) URL.
    func configuration(store: StoreConfiguration, _ context: CommandContext) throws(CommandFailure) -> AppConfiguration {
        guard let text = server ?? context.environment[Self.serverVariable], !text.isEmpty else {
            throw context.usage("no server: give --server URL or set \(Self.serverVariable)")
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw context.usage("--server must be an http:// or https:// URL")
        }
        return AppConfiguration(store: store, server: .remote(url), contract: contract, clientID: clientID)
    }
}
