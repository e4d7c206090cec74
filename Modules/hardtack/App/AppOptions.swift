import CommandLineKit
import Composition
import Data
import Domain

/// The options of the commands that talk to the server: the server's and the store's, and a way to build
/// the app from them once the command's own options are checked (so a usage error never creates a store).
struct AppOptions: StaticOptionGroup {
    static let declarations: [any ArgumentDeclaring] =
        AccountOption.declarations + ServerOptions.declarations + StoreArguments.declarations

    /// The help sections: the account, server options, then store options.
    static let sections = [
        ArgumentSection("Account", AccountOption.declarations),
        ArgumentSection("Server options", ServerOptions.declarations), StoreArguments.section("Store options"),
    ]

    /// Whose session.
    let account: AccountOption
    /// The server options.
    let server: ServerOptions
    /// The store options.
    let store: StoreArguments

    init(from values: ParsedValues) throws(UsageError) {
        account = try AccountOption(from: values)
        server = try ServerOptions(from: values)
        store = try StoreArguments(from: values)
    }

    /// Builds the app: opens the store, points at the server (the session's own unless told otherwise).
    /// - Parameter creatingStore: whether a missing store may be created (sign-in); otherwise a
    ///   missing store means "not signed in" and nothing is created.
    func app(_ context: CommandContext, creatingStore: Bool = false) throws(CommandFailure) -> AppContainer {
        try app(context, account: account.name, creatingStore: creatingStore)
    }

    /// Builds the app for `account`'s session, on `opened` when the store is open already (one open for
    /// many accounts: each open derives the key again and, on PostgreSQL, takes an instance lock).
    func app(
        _ context: CommandContext, account: AccountName, creatingStore: Bool = false, opened: KeychainHandle? = nil
    ) throws(CommandFailure) -> AppContainer {
        let storeConfiguration = try store.configuration(context)
        if creatingStore {
            var configuration = try server.configuration(store: storeConfiguration, origin: nil, context)
            configuration.account = account
            do throws(SecureStoreError) {
                return try AppContainer(configuration)
            } catch {
                throw .store(error)
            }
        }
        guard opened != nil || storeConfiguration.storeExists else { throw .auth(.notSignedIn) }
        let keychain: KeychainHandle
        if let opened { keychain = opened } else { keychain = try StoreArguments.open(storeConfiguration) }
        // A session that cannot be read has no origin to keep: the use case reports it (sign-out still deletes it).
        let loaded: Result<Session?, AuthenticationError> = Result {
            () throws(AuthenticationError) -> Session? in
            try SecureStoreSessionRepository(store: keychain.items, account: account).load()
        }
        var configuration: AppConfiguration
        do throws(CommandFailure) {
            configuration = try server.configuration(store: storeConfiguration, origin: try? loaded.get()?.origin, context)
        } catch {
            // No server to talk to, and no session that would need one (an unknown account): signed out.
            if case .success(nil) = loaded { throw .auth(.notSignedIn) }
            throw error
        }
        configuration.account = account
        return AppContainer(configuration, keychain: keychain)
    }
}
