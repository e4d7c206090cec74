import CommandLineKit
import Composition
import Data
import Domain

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

    /// Builds the app: opens the store, points at the server (the session's own unless told otherwise).
    /// - Parameter creatingStore: whether a missing store may be created (sign-in); otherwise a
    ///   missing store means "not signed in" and nothing is created.
    func app(_ context: CommandContext, creatingStore: Bool = false) throws(CommandFailure) -> AppContainer {
        let storeConfiguration = try store.configuration(context)
        if creatingStore {
            let configuration = try server.configuration(store: storeConfiguration, origin: nil, context)
            do throws(SecureStoreError) {
                return try AppContainer(configuration)
            } catch {
                throw .store(error)
            }
        }
        guard storeConfiguration.storeExists else { throw .auth(.notSignedIn) }
        let keychain = try StoreOptions.open(storeConfiguration)
        // A session that cannot be read has no origin to keep: the use case reports it (sign-out still deletes it).
        let origin = (try? SecureStoreSessionRepository(store: keychain.items).load())??.origin
        let configuration = try server.configuration(store: storeConfiguration, origin: origin, context)
        return AppContainer(configuration, keychain: keychain)
    }
}
