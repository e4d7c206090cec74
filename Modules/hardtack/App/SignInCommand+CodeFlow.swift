import CommandLineKit
import Composition
import Domain
import Foundation

/// `hardtack signin --flow code` (PKCE through the browser) and `--flow device` (RFC 8628).
extension SignInCommand {
    /// The flow asked for, or implied: password when a username, `--password-stdin` or a provider is
    /// given, else code.
    var chosenFlow: String {
        flowOptions.flow ?? (username != nil || readsPassword || provider != nil ? "password" : "code")
    }

    /// Runs the code or device flow; URLs, codes and progress go to standard error, the result to
    /// standard output.
    func executeBrowserFlow(_ context: CommandContext, device: Bool) async throws(CommandFailure) {
        guard username == nil, provider == nil, !readsPassword, !readsIdentityToken else {
            throw context.usage("--flow \(chosenFlow) takes no --username, --password-stdin or --provider")
        }
        guard let text = flowOptions.issuer, let url = URL(string: text), url.scheme != nil, url.host != nil else {
            throw context.usage("the \(chosenFlow) flow needs --issuer URL (or use --username NAME --password-stdin)")
        }
        var secret: SecretBytes?
        if flowOptions.readsClientSecret {
            guard let read = Console.readSecret(prompt: "Client secret: "), !read.isEmpty else {
                throw context.usage("no client secret on standard input")
            }
            secret = read
        }
        let store = try options.store.configuration(context)
        let scope = flowOptions.scope ?? "openid profile"
        let clientID = options.server.clientID ?? AppConfiguration.defaultClientID
        let account = options.account.name
        let announce: @Sendable (String) -> Void = { line in Console.error(line) }
        let outcome: Result<(Session, AppContainer), SignInFailure>
        if device {
            let flow = DeviceFlowSignIn(
                issuer: url, clientID: clientID, scope: scope, store: store, account: account, clientSecret: secret)
            outcome = await Interruptible.run { () async throws(SignInFailure) in try await flow.run(announce: announce) }
        } else {
            let flow = CodeFlowSignIn(
                issuer: url, clientID: clientID, scope: scope, timeout: flowOptions.timeout ?? 300,
                environment: options.store.withoutKeyVariable(context.environment), store: store, account: account,
                clientSecret: secret)
            outcome = await Interruptible.run { () async throws(SignInFailure) in try await flow.run(announce: announce) }
        }
        let session: Session
        let app: AppContainer
        switch outcome {
        case .success(let done): (session, app) = done
        case .failure(.auth(let failure)): throw .auth(failure)
        case .failure(.store(let failure)): throw .store(failure)
        case .failure(.cancelled): throw .finding(.interrupted, "sign-in cancelled; nothing was stored")
        }
        Console.print(
            "signed in as \(session.user.map { "\(Redaction.user($0)) (\(Redaction.printable($0.id)))" } ?? "(unknown user)")")
        Console.print("access token:  \(Redaction.token(session.accessToken.value))")
        Console.print("refresh token: \(Redaction.token(session.refreshToken.value))")
        Console.print("stored in \(app.keychain.storePath)")
    }
}
