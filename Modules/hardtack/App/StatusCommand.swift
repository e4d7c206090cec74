import CommandLineKit
import Composition
import Data
import Domain

/// `hardtack status`: the launch-time decision, as an app makes it before showing anything.
struct StatusCommand: HardtackCommand {
    static let configuration = CommandConfiguration(
        name: "status", abstract: "Decide, as an app does at launch, whether the user is signed in.",
        discussion: [
            "Reads only the store, and never creates one (no store means signed out): no network. Exits 0 when the "
                + "app would show its main flow (signed in, also when only a refresh is needed), 3 when it would show "
                + "sign-in, 75 when the store cannot be read (the user is not signed out: unlock or retry), 65 when it is damaged "
                + "(the user is not signed out: `hardtack keychain verify`, then `hardtack keychain salvage --to NEW`).",
            "JSON: {\"decision\": \"signedIn\" | \"signedInNeedsRefresh\" | \"signedOut\" | \"storeUnavailable\" | \"storeDamaged\", "
                + "\"mainFlow\": BOOL, \"user\": {\"id\": TEXT, \"name\": TEXT} or null, \"accessTokenSecondsLeft\": N "
                + "or null, \"reason\": TEXT or null, \"store\": PATH}; never a token.",
        ],
        exitStatuses: ExitStatus.appTable)

    /// Whose session, listed among the command's own options.
    @OptionGroup var account: AccountOption
    /// `--json`.
    @Flag("--json", help: "Print one JSON object instead of text.") var json: Bool
    /// The store.
    @OptionGroup(title: "Store options") var store: StoreArguments

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        let store = try store.configuration(context, onlyReads: true)
        let decision: LaunchDecision
        let exists = await store.storeExists
        if exists {
            let local: LocalSession
            do throws(SecureStoreError) {
                local = try await LocalSession(store: store, account: account.name)
            } catch {
                throw .store(error)
            }
            decision = await local.validateAuthentication()
        } else {
            decision = .signedOut
        }
        if json {
            Console.print(Self.document(decision, store: store.displayLocation).rendered())
        } else {
            Console.print(Redaction.decision(decision) + (exists ? "" : " (no store at \(store.displayLocation))"))
        }
        switch decision {
        case .signedIn, .signedInNeedsRefresh: return
        case .signedOut: throw .finding(.signedOut, "not signed in")
        case .storeUnavailable(let reason): throw .finding(.storeUnavailable, Advice.storeUnavailable(reason))
        case .storeDamaged(let reason): throw .finding(.damaged, Advice.message(AuthenticationError.storeDamaged(reason)))
        }
    }

    /// The decision as JSON.
    static func document(_ decision: LaunchDecision, store: String) -> JSONValue {
        let (name, user, secondsLeft, reason): (String, User?, Double?, String?) =
            switch decision {
            case .signedIn(let user, let left): ("signedIn", user, left, nil)
            case .signedInNeedsRefresh(let user): ("signedInNeedsRefresh", user, nil, nil)
            case .signedOut: ("signedOut", nil, nil, nil)
            case .storeUnavailable(let reason): ("storeUnavailable", nil, nil, reason)
            case .storeDamaged(let reason): ("storeDamaged", nil, nil, reason)
            }
        return .object([
            ("decision", .string(name)), ("mainFlow", .bool(decision.showsMainFlow)),
            ("user", user.map(userJSON) ?? .null),
            ("accessTokenSecondsLeft", secondsLeft.map { .integer(Int64($0.rounded(.down))) } ?? .null),
            ("reason", reason.map(JSONValue.string) ?? .null), ("store", .string(store)),
        ])
    }

    /// A user as JSON: its id and name as the server gave them, cleaned of control characters.
    static func userJSON(_ user: User) -> JSONValue {
        .object([("id", .string(Redaction.printable(user.id))), ("name", .string(Redaction.printable(user.name)))])
    }
}
