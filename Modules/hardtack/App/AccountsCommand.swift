import CommandLineKit
import Composition
import Data
import Domain
import Foundation

/// `hardtack accounts`: every account with a session in the store, never a token.
struct AccountsCommand: HardtackCommand {
    static let configuration = CommandConfiguration(
        name: "accounts", abstract: "List every account with a session in the store: user, method, launch decision.",
        discussion: [
            "Reads only the store: no network, never a token. One line per account (the default account is the one "
                + "commands use without --account). --json prints {\"accounts\": [{\"account\", \"user\" ({\"id\", "
                + "\"name\"}), \"method\", \"decision\", \"accessTokenExpiresAt\"}]}, with null for what is not known; "
                + "decision is named as status --json names it (signedIn, signedInNeedsRefresh, signedOut, "
                + "storeUnavailable, storeDamaged)."
        ],
        exitStatuses: ExitStatus.appTable)

    /// `--json`.
    @Flag("--json", help: "Print one JSON object instead of text.") var json: Bool
    /// The store.
    @OptionGroup(title: "Store options") var store: StoreArguments

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        let configuration = try store.configuration(context)
        var overview: [AccountOverview] = []
        if await configuration.storeExists {
            do throws(SecureStoreError) {
                overview = try await SessionDirectory.overview(store: configuration)
            } catch {
                throw .store(error)
            }
        }
        if json {
            Console.print(Self.document(overview))
        } else if overview.isEmpty {
            Console.print("no account has a session")
        } else {
            for entry in overview {
                var line = Redaction.printable(entry.account.value)
                if let user = entry.user { line += " · \(Redaction.user(user))" }
                if let method = entry.method { line += " · \(Self.name(of: method))" }
                line += " · " + Redaction.decision(entry.decision)
                Console.print(line)
            }
        }
    }

    private static func name(of method: SignInMethod) -> String {
        switch method {
        case .password: "password"
        case .authorizationCode: "authorization code"
        case .deviceCode: "device code"
        case .identityProvider(let provider): "identity provider \(Redaction.printable(provider))"
        case .legacyImport: "legacy import"
        }
    }

    private static func decisionName(_ decision: LaunchDecision) -> String {
        // The names `status --json` uses.
        switch decision {
        case .signedIn: "signedIn"
        case .signedInNeedsRefresh: "signedInNeedsRefresh"
        case .signedOut: "signedOut"
        case .storeUnavailable: "storeUnavailable"
        case .storeDamaged: "storeDamaged"
        }
    }

    private static func document(_ overview: [AccountOverview]) -> String {
        let formatter = ISO8601DateFormatter()
        let entries: [JSONValue] = overview.map { entry in
            .object([
                ("account", .string(entry.account.value)),
                ("user", entry.user.map(StatusCommand.userJSON) ?? .null),
                ("method", entry.method.map { .string(name(of: $0)) } ?? .null),
                ("decision", .string(decisionName(entry.decision))),
                ("accessTokenExpiresAt", entry.accessTokenExpiresAt.map { .string(formatter.string(from: $0)) } ?? .null),
            ])
        }
        return JSONValue.object([("accounts", .array(entries))]).rendered()
    }
}
