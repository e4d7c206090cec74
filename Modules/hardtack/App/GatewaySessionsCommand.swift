import CommandLineKit
import Composition
import Domain
import Foundation
import Gateway

/// `hardtack gateway sessions`: the gateway's sessions in the store, never a token or a cookie.
struct GatewaySessionsCommand: HardtackCommand {
    static let configuration = CommandConfiguration(
        name: "sessions",
        abstract: "List the gateway's sessions in the store: user, signed in, last used, the refresh token's end.",
        discussion: [
            "Reads only the store (every instance's sessions, on a shared PostgreSQL store): never a token or a "
                + "cookie. One line per session, oldest sign-in first. --json prints {\"sessions\": [{\"session\", "
                + "\"user\" ({\"id\", \"name\"}), \"signedInAt\", \"lastUsedAt\", \"expiresAt\"}]} with null for what is "
                + "not known; lastUsedAt is recorded at most once a minute; expiresAt is the refresh token's end (the "
                + "gateways' idle timeout may come first). End one with `hardtack gateway revoke`."
        ],
        exitStatuses: ExitStatus.appTable)

    /// `--user SUB`.
    @Option("--user", value: "SUB", help: "Only this user's sessions (the issuer's `sub`).", allowsEmpty: false)
    var user: String?
    /// `--json`.
    @Flag("--json", help: "Print one JSON object instead of text.") var json: Bool
    /// The store.
    @OptionGroup(title: "Store options") var store: StoreArguments

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        try GatewayServeOptions.refuseBefore(Self.configuration.name, context)
        var sessions: [GatewaySessionSummary] = []
        let configuration = try store.configuration(context, onlyReads: true)
        if await configuration.storeExists {
            let keychain = try await StoreArguments.open(configuration)
            do throws(AuthenticationError) {
                sessions = try await GatewaySessionAdmin(store: keychain.items).sessions(user: user)
            } catch {
                throw .auth(error)
            }
        }
        if json {
            let formatter = ISO8601DateFormatter()
            func date(_ date: Date?) -> JSONValue { date.map { .string(formatter.string(from: $0)) } ?? .null }
            let entries: [JSONValue] = sessions.map { session in
                .object([
                    ("session", .string(session.sessionID)), ("user", session.user.map(StatusCommand.userJSON) ?? .null),
                    ("signedInAt", date(session.signedInAt)), ("lastUsedAt", date(session.lastUsedAt)),
                    ("expiresAt", date(session.expiresAt)),
                ])
            }
            Console.print(JSONValue.object([("sessions", .array(entries))]).rendered())
        } else if sessions.isEmpty {
            Console.print(user == nil ? "no gateway session" : "no gateway session of that user")
        } else {
            let formatter = ISO8601DateFormatter()
            func date(_ date: Date?, _ unknown: String) -> String { date.map(formatter.string(from:)) ?? unknown }
            for session in sessions {
                let user = session.user.map { "\(Redaction.printable($0.id)) (\(Redaction.user($0)))" } ?? "unknown user"
                Console.print(
                    "\(session.sessionID) · \(user) · signed in \(date(session.signedInAt, "at an unknown time")) · "
                        + "last used \(date(session.lastUsedAt, "not recorded")) · "
                        // The refresh token's end: the gateways' idle timeout, which they alone know, may come first.
                        + (session.expiresAt.map { "refresh token expires \(formatter.string(from: $0))" }
                            ?? "refresh token without an end"))
            }
        }
    }
}
