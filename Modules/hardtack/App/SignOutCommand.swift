import Composition
import Domain

/// `hardtack signout`: revoke at the server (best effort), then delete locally whatever happened.
enum SignOutCommand {
    static let command = AppCommand(
        name: "signout", summary: "Revoke the refresh token at the server, then delete the local session.",
        options: [], operands: "", usesServer: true,
        notes: ["The local session is deleted even when the server cannot be reached; the output says both."],
        run: { context, _ throws(CommandFailure) in
            let app = try context.app()
            let result = try await authStep { () async throws(AuthenticationError) in try await app.signOut() }
            switch result.revocation {
            case .revoked: Console.print("server: refresh token revoked")
            case .failed(let reason): Console.print("server: revocation failed (\(reason))")
            case .notSignedIn: Console.print("server: nothing to revoke (not signed in)")
            }
            Console.print(result.deletedLocalSession ? "local: session deleted" : "local: no session stored")
        })
}
