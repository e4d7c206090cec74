import Composition
import Data
import Domain

/// `hardtack status`: the launch-time decision, as an app makes it before showing anything.
enum StatusCommand {
    static let command = AppCommand(
        name: "status", summary: "Decide, as an app does at launch, whether the user is signed in.",
        options: [], operands: "", usesServer: false,
        notes: [
            "Reads only the store: no network. Exits 0 when the app would show its main flow (signed in, also when "
                + "only a refresh is needed), 3 when it would show sign-in, 75 when the store cannot be read (the "
                + "user is not signed out: unlock or retry)."
        ],
        run: { context, _ throws(CommandFailure) in
            let store = try GlobalOptions.configuration(context.options, environment: context.environment, parser: context.parser)
            guard store.storeExists else {
                Console.print(Redaction.decision(.signedOut) + " (no store at \(store.storePath))")
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
        })
}
