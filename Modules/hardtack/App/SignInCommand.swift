import CommandLineKit
import Composition
import Domain

/// `hardtack signin`: exchanges a password (or an identity token) for a session and stores it.
struct SignInCommand: HardtackCommand {
    static let configuration = CommandConfiguration(
        name: "signin", abstract: "Sign in and keep both tokens in the encrypted store, replacing any earlier session.",
        discussion: [
            "Give --username NAME --password-stdin, or --provider NAME --identity-token-stdin. Secrets are read from "
                + "standard input so that they never show in `ps` or shell history."
        ],
        exitStatuses: ExitStatus.appTable)

    /// `--flow` and the code and device flows' options, listed first.
    @OptionGroup var flowOptions: SignInFlowOptions
    /// `--username NAME`, if given.
    @Option("--username", value: "NAME", help: "The account to sign in as.") var username: String?
    /// `--password-stdin`: whether the password comes from standard input.
    @Flag(
        "--password-stdin",
        help: "Read the password from standard input (the only way to give it: never on the command line); from a "
            + "terminal it prompts with echo off.")
    var readsPassword: Bool
    /// `--provider NAME`, if given.
    @Option(
        "--provider", value: "NAME",
        help: "Sign in with an identity provider's token instead (apple, google); header style only.")
    var provider: String?
    /// `--identity-token-stdin`: whether the identity token comes from standard input.
    @Flag("--identity-token-stdin", help: "Read the identity provider's token from standard input.")
    var readsIdentityToken: Bool
    /// The account, server and store.
    @OptionGroup var options: AppOptions

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        switch chosenFlow {
        case "code": return try await executeBrowserFlow(context, device: false)
        case "device": return try await executeBrowserFlow(context, device: true)
        case "password": break
        default: throw context.usage("--flow takes code, device or password")
        }
        let credentials = try credentials(context)
        // Without --style the contract is OAuth (a sign-in starts a session afresh).
        if case .password = credentials, (options.server.contract ?? .oauth) == .oauth {
            Console.error("warning: the password grant must not be used (RFC 9700 §2.4); prefer --flow code or --flow device")
        }
        // A sign-in that fails (a server that is down, a wrong password) leaves no new store behind.
        let storeConfiguration = try options.store.configuration(context)
        let cleanup = NewStoreCleanup(storeConfiguration)
        let app: AppContainer
        let session: Session
        do throws(CommandFailure) {
            app = try await options.app(context, creatingStore: true)
            session = try await authStep { () async throws(AuthenticationError) in try await app.signIn(credentials) }
        } catch .auth(.temporarilyUnavailable(let reason)) {
            // A sign-in keeps nothing: the generic wording ("the session is kept") would claim one.
            await cleanup.removeWhatWasCreated(storeConfiguration)
            throw .finding(
                .serverUnavailable, "the server is unavailable: \(reason). Nothing was stored; sign in again later")
        } catch {
            await cleanup.removeWhatWasCreated(storeConfiguration)
            throw error
        }
        Console.print(
            "signed in as \(session.user.map { "\(Redaction.user($0)) (\(Redaction.printable($0.id)))" } ?? "(unknown user)")")
        Console.print("access token:  \(Redaction.token(session.accessToken.value))")
        Console.print("refresh token: \(Redaction.token(session.refreshToken.value))")
        Console.print("stored in \(app.keychain.storePath)")
    }

    private func credentials(_ context: CommandContext) throws(CommandFailure) -> Credentials {
        if let provider {
            guard readsIdentityToken, username == nil else {
                throw context.usage("--provider needs --identity-token-stdin (and no --username)")
            }
            guard !provider.isEmpty, provider.count <= 40,
                provider.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" })
            else {
                throw context.usage("--provider takes a name of lowercase letters, digits and '-', such as apple")
            }
            guard let token = Console.readSecret(prompt: "Identity token: "), !token.isEmpty else {
                throw context.usage("no identity token on standard input")
            }
            return .identityToken(provider: provider, token: token)
        }
        guard let name = username, !name.isEmpty else {
            throw context.usage("give --username NAME (or --provider NAME)")
        }
        guard readsPassword else {
            throw context.usage("give the password on standard input with --password-stdin")
        }
        guard let password = Console.readSecret(prompt: "Password for \(name): "), !password.isEmpty else {
            throw context.usage("no password on standard input")
        }
        return .password(username: name, password: password)
    }
}
