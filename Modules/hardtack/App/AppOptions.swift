import Composition
import Data
import Foundation

/// The options every app command shares: which server, which contract, which client.
enum AppOptions {
    /// The variable that names the server when `--server` is not given.
    static let serverVariable = "HARDTACK_SERVER"

    /// `--server URL`.
    static let server = OptionSpec.value(
        "--server", "URL", "The auth server's base URL, such as http://127.0.0.1:8080 (default: $HARDTACK_SERVER).")
    /// `--style oauth|header`.
    static let style = OptionSpec.value(
        "--style", "oauth|header",
        "The server's contract: OAuth 2.0 token endpoint, or tokens in Authorization headers (default: oauth).")
    /// `--client-id ID`.
    static let clientID = OptionSpec.value(
        "--client-id", "ID", "The OAuth client id (default: \(AppConfiguration.defaultClientID)).")

    /// The server options, in help order.
    static let all: [OptionSpec] = [server, style, clientID]

    /// The app configuration the options and environment describe.
    static func configuration(_ context: AppContext) throws(CommandFailure) -> AppConfiguration {
        let store = try GlobalOptions.configuration(context.options, environment: context.environment, parser: context.parser)
        guard let text = context.options.value(server.name) ?? context.environment[serverVariable], !text.isEmpty else {
            throw context.usage("no server: give --server URL or set \(serverVariable)")
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw context.usage("--server must be an http:// or https:// URL")
        }
        let styleName = context.options.value(style.name) ?? ServerContract.oauth.rawValue
        guard let contract = ServerContract(rawValue: styleName) else {
            throw context.usage("--style must be oauth or header")
        }
        let client = context.options.value(clientID.name) ?? AppConfiguration.defaultClientID
        guard !client.isEmpty else { throw context.usage("--client-id needs a non-empty value") }
        return AppConfiguration(store: store, server: .remote(url), contract: contract, clientID: client)
    }
}
