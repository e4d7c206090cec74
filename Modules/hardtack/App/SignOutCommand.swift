import CommandLineKit
import Composition
import Domain

/// `hardtack signout`: revoke at the server (best effort), then delete locally whatever happened.
struct SignOutCommand: HardtackCommand {
    static let configuration = CommandConfiguration(
        name: "signout", abstract: "Revoke the refresh token at the server, then delete the local session.",
        discussion: ["The local session is deleted even when the server cannot be reached; the output says both."],
        exitStatuses: ExitStatus.appTable)
    static let sections = [ArgumentSection("Options", [])] + AppOptions.sections

    /// The server and store.
    let options: AppOptions

    init(from values: ParsedValues) throws(UsageError) {
        options = try AppOptions(from: values)
    }

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        let app = try options.app(context)
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
            Console.print("not signed in: nothing to revoke" + (result.deletedLocalSession ? "; local items deleted" : ""))
        }
    }
}
