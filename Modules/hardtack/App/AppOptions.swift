import CommandLineKit
import Composition
import Data
import Domain

/// The options of the commands that talk to the server: the account, the server's and the store's, each in
/// a help section of its own (a command embeds this group untitled), and a way to build the app from them
/// once the command's own options are checked (so a usage error never creates a store).
struct AppOptions: ParsableArguments {
    /// Whose session.
    @OptionGroup(title: "Account") var account: AccountOption
    /// The server options.
    @OptionGroup(title: "Server options") var server: ServerOptions
    /// The store options.
    @OptionGroup(title: "Store options") var store: StoreArguments

    /// Builds the app: opens the store, points at the server (the session's own unless told otherwise).
    /// - Parameter creatingStore: whether a missing store may be created (sign-in); otherwise a
    ///   missing store means "not signed in" and nothing is created.
    func app(_ context: CommandContext, creatingStore: Bool = false) async throws(CommandFailure) -> AppContainer {
        try await app(context, account: account.name, creatingStore: creatingStore)
    }

    /// Builds the app for `account`'s session, on `opened` when the store is open already (one open for
    /// many accounts: each open derives the key again and, on PostgreSQL, takes an instance lock).
    func app(
        _ context: CommandContext, account: AccountName, creatingStore: Bool = false, opened: KeychainHandle? = nil
    ) async throws(CommandFailure) -> AppContainer {
        let storeConfiguration = try store.configuration(context)
        if creatingStore {
            var configuration = try server.configuration(store: storeConfiguration, origin: nil, context)
            configuration.account = account
            do throws(SecureStoreError) {
                return try await AppContainer(configuration)
            } catch {
                throw .store(error)
            }
        }
        let keychain: KeychainHandle
        if let opened {
            keychain = opened
        } else {
            guard await storeConfiguration.storeExists else { throw .auth(.notSignedIn) }
            keychain = try await StoreArguments.open(storeConfiguration)
        }
        // The session is read once, by the root: its origin names the server, and the app reuses the read.
        return try await AppContainer.forStoredSession(of: account, in: keychain) {
            (stored: Result<Session?, AuthenticationError>) throws(CommandFailure) -> AppConfiguration in
            do throws(CommandFailure) {
                // A session that cannot be read has no origin to keep: the use case reports it (sign-out
                // still deletes it).
                return try server.configuration(store: storeConfiguration, origin: try? stored.get()?.origin, context)
            } catch {
                // No server to talk to, and no session that would need one (an unknown account): signed out.
                if case .success(nil) = stored { throw .auth(.notSignedIn) }
                throw error
            }
        }
    }
}
