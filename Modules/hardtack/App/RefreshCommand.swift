import Composition
import Domain

/// `hardtack refresh`: refresh the tokens now.
enum RefreshCommand {
    static let command = AppCommand(
        name: "refresh", summary: "Refresh the tokens now (the new refresh token is stored before anything else).",
        options: [], operands: "", usesServer: true,
        notes: ["A rejected refresh token ends the session (exit 3); a network failure keeps it (exit 69)."],
        run: { context, _ throws(CommandFailure) in
            let app = try context.app()
            let session = try await authStep { () async throws(AuthenticationError) in try await app.refreshNow() }
            Console.print("refreshed")
            Console.print("access token:  \(Redaction.token(session.accessToken.value))")
            Console.print("refresh token: \(Redaction.token(session.refreshToken.value))")
        })
}
