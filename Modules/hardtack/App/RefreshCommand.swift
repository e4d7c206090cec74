import CommandLineKit
import Composition
import Domain

/// `hardtack refresh`: refresh the tokens now.
struct RefreshCommand: HardtackCommand {
    static let configuration = CommandConfiguration(
        name: "refresh", abstract: "Refresh the tokens now (the new refresh token is stored before anything else).",
        discussion: ["A rejected refresh token ends the session (exit 3); a network failure keeps it (exit 69)."],
        exitStatuses: ExitStatus.appTable)

    /// The account, server and store.
    @OptionGroup var options: AppOptions

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        let app = try await options.app(context)
        let session = try await authStep { () async throws(AuthenticationError) in try await app.refreshNow() }
        Console.print("refreshed")
        Console.print("access token:  \(Redaction.token(session.accessToken.value))")
        Console.print("refresh token: \(Redaction.token(session.refreshToken.value))")
    }
}
