import Composition
import Domain

/// `hardtack signin`: exchanges a password (or an identity token) for a session and stores it.
enum SignInCommand {
    static let username = OptionSpec.value("--username", "NAME", "The account to sign in as.")
    static let passwordStdin = OptionSpec.flag(
        "--password-stdin", "Read the password from standard input (the only way to give it: never on the command line); from a "
            + "terminal it prompts with echo off.")
    static let provider = OptionSpec.value(
        "--provider", "NAME", "Sign in with an identity provider's token instead (apple, google); header style only.")
    static let tokenStdin = OptionSpec.flag(
        "--identity-token-stdin", "Read the identity provider's token from standard input.")

    static let command = AppCommand(
        name: "signin", summary: "Sign in and keep both tokens in the encrypted store, replacing any earlier session.",
        options: [username, passwordStdin, provider, tokenStdin], operands: "", usesServer: true,
        notes: [
            "Give --username NAME --password-stdin, or --provider NAME --identity-token-stdin. Secrets are read from "
                + "standard input so that they never show in `ps` or shell history."
        ],
        run: { context, _ throws(CommandFailure) in
            let credentials = try credentials(context)
            let app = try context.app(creatingStore: true)
            let session = try await authStep { () async throws(AuthenticationError) in try await app.signIn(credentials) }
            Console.print(
                "signed in as \(session.user.map { "\(Redaction.user($0)) (\(Redaction.printable($0.id)))" } ?? "(unknown user)")")
            Console.print("access token:  \(Redaction.token(session.accessToken.value))")
            Console.print("refresh token: \(Redaction.token(session.refreshToken.value))")
            Console.print("stored in \(app.keychain.storePath)")
        })

    private static func credentials(_ context: AppContext) throws(CommandFailure) -> Credentials {
        let options = context.options
        if let provider = options.value(provider.name) {
            guard options.has(tokenStdin.name), !options.has(username.name) else {
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
        guard let name = options.value(username.name), !name.isEmpty else {
            throw context.usage("give --username NAME (or --provider NAME)")
        }
        guard options.has(passwordStdin.name) else {
            throw context.usage("give the password on standard input with --password-stdin")
        }
        guard let password = Console.readSecret(prompt: "Password for \(name): "), !password.isEmpty else {
            throw context.usage("no password on standard input")
        }
        return .password(username: name, password: password)
    }
}
