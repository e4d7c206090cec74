import CommandLineKit
import Composition
import Data
import Domain

/// `hardtack signout`: revoke at the server (best effort), then delete locally whatever happened.
struct SignOutCommand: HardtackCommand {
    static let configuration = CommandConfiguration(
        name: "signout", abstract: "Revoke the refresh token at the server, then delete the local session.",
        discussion: [
            "The local session is deleted even when the server cannot be reached; the output says both. With --all, "
                + "every account's session the store options can see, each at its own server."
        ],
        exitStatuses: ExitStatus.appTable)

    /// `--all`.
    @Flag("--all", help: "Sign out every account with a session in the store.") var everyAccount: Bool
    /// The account, server and store.
    @OptionGroup var options: AppOptions

    func validate() throws(UsageError) {
        if everyAccount && options.account.given != nil { throw UsageError("give --all or --account, not both") }
    }

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        guard everyAccount else { return try await signOut(options.account.name, context, naming: false) }
        let configuration = try options.store.configuration(context)
        guard await configuration.storeExists else {
            Console.print("no account has a session")
            return
        }
        let keychain = try await StoreArguments.open(configuration)
        let accounts: [AccountName]
        do throws(AuthenticationError) {
            accounts = try await keychain.accounts()
        } catch {
            throw .auth(error)
        }
        if accounts.isEmpty { Console.print("no account has a session") }
        // Every account is tried, on the one open store; the first failure is the exit status.
        var firstFailure: CommandFailure?
        for account in accounts {
            do throws(CommandFailure) {
                try await signOut(account, context, naming: true, opened: keychain)
            } catch {
                Console.error("\(Redaction.printable(account.value)): \(error.message(verbose: false))")
                if firstFailure == nil { firstFailure = error }
            }
        }
        if let firstFailure { throw firstFailure }
    }

    /// Signs `account` out; with `naming`, each line says whose session it was.
    private func signOut(_ account: AccountName, _ context: CommandContext, naming: Bool, opened: KeychainHandle? = nil)
        async throws(CommandFailure)
    {
        if naming { Console.print("\(Redaction.printable(account.value)):") }
        let app = try await options.app(context, account: account, opened: opened)
        let result = try await authStep { () async throws(AuthenticationError) in try await app.signOut() }
        switch result.revocation {
        case .revoked:
            Console.print("server: refresh token revoked")
            Console.print(result.deletedLocalSession ? "local: session deleted" : "local: no session stored")
        case .failed(let reason):
            Console.print(
                "signed out here, but not at the server: \(reason). The refresh token stays valid there until it "
                    + "expires; the local session was deleted.")
        case .notSignedIn:
            // Nothing was stored: signed out already, exit 3 as with no store at all.
            guard result.deletedLocalSession else { throw .finding(.signedOut, "not signed in: nothing to revoke") }
            Console.print("not signed in: nothing to revoke; local items deleted")
        }
    }
}
