import CommandLineKit
import Composition
import Data

/// The options of the commands that talk to the server: the server's and the store's, and a way to build
/// the app from them once the command's own options are checked (so a usage error never creates a store).
struct AppOptions: OptionGroup {
    static let declarations: [any ArgumentDeclaring] = ServerOptions.declarations + StoreOptions.declarations

    /// The help sections: server options, then store options.
    static let sections = [
        ArgumentSection("Server options", ServerOptions.declarations), StoreOptions.section("Store options"),
    ]

    /// The server options.
    let server: ServerOptions
    /// The store options.
    let store: StoreOptions

    init(from values: ParsedValues) throws(UsageError) {
        server = try ServerOptions(from: values)
        store = try StoreOptions(from: values)
    }

    /// Builds the app: opens the store, points at the server.
    /// - Parameter creatingStore: whether a missing store may be created (sign-in); otherwise a
    ///   missing store means "not signed in" and nothing is created.
    func app(_ context: CommandContext, creatingStore: Bool = false) throws(CommandFailure) -> AppContainer {
        let configuration = try server.configuration(store: store.configuration(context), context)
        guard creatingStore || configuration.store.storeExists else { throw .auth(.notSignedIn) }
        do throws(SecureStoreError) {
            return try AppContainer(configuration)
        } catch {
            throw .store(error)
        }
    }
}
