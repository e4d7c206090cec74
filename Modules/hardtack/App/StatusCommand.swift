import CommandLineKit
import Composition
import Data
import Domain

/// `hardtack status`: the launch-time decision, as an app makes it before showing anything.
struct StatusCommand: HardtackCommand {
    static let configuration = CommandConfiguration(
        name: "status", abstract: "Decide, as an app does at launch, whether the user is signed in.",
        discussion: [
            "Reads only the store: no network. Exits 0 when the app would show its main flow (signed in, also when "
                + "only a refresh is needed), 3 when it would show sign-in, 75 when the store cannot be read (the "
                + "user is not signed out: unlock or retry)."
        ],
        exitStatuses: ExitStatus.appTable)
    static let sections = [ArgumentSection("Options", []), StoreOptions.section("Store options")]

    /// The store.
    let store: StoreOptions

    init(from values: ParsedValues) throws(UsageError) {
        store = try StoreOptions(from: values)
    }

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        let store = try store.configuration(context, onlyReads: true)
        guard store.storeExists else {
            Console.print(Redaction.decision(.signedOut) + " (no store at \(store.displayLocation))")
            throw .finding(.signedOut, "not signed in")
        }
        let local: LocalSession
        do throws(SecureStoreError) {
            local = try LocalSession(store: store)
        } catch {
            throw .store(error)
        }
        let decision = local.validateAuthentication()
        Console.print(Redaction.decision(decision))
        switch decision {
        case .signedIn, .signedInNeedsRefresh: return
        case .signedOut: throw .finding(.signedOut, "not signed in")
        case .storeUnavailable(let reason): throw .finding(.storeUnavailable, "the store cannot be read: \(reason)")
        }
    }
}
