import CommandLineKit
import Composition
import Domain

/// `hardtack me`: an authorized call to `/api/me`, refreshing on the way when needed.
struct MeCommand: HardtackCommand {
    static let configuration = CommandConfiguration(
        name: "me", abstract: "Call GET /api/me with the access token; refresh first if it expired, once on a 401.",
        discussion: [
            "Concurrent calls share one refresh, and processes sharing the store refresh once between them: the "
                + "line `refreshes by this process: N` shows this process's part.",
            "JSON: {\"user\": {\"id\": TEXT, \"name\": TEXT}, \"calls\": N, \"refreshes\": N}; never a token.",
        ],
        exitStatuses: ExitStatus.appTable)

    /// `--concurrent N`: how many calls to send at once, if given.
    @Option(
        "--concurrent", value: "N",
        help: "Send N calls at once (1–1000) and report how many refreshes this process made.", range: 1...1000,
        invalidValue: "--concurrent takes a number from 1 to 1000")
    var concurrent: Int?
    /// `--json`.
    @Flag("--json", help: "Print one JSON object instead of text.") var json: Bool
    /// The account, server and store.
    @OptionGroup var options: AppOptions

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        let count = concurrent ?? 1
        let app = try await options.app(context)
        let users = try await authStep { () async throws(AuthenticationError) in
            try await withThrowingTaskGroup(of: User.self) { group in
                for _ in 0..<count { group.addTask { try await app.currentUser() } }
                return try await group.reduce(into: [User]()) { $0.append($1) }
            }
        }
        let user = users[0]
        let refreshes = await app.refreshSession.refreshCount
        if json {
            let document = JSONValue.object([
                ("user", StatusCommand.userJSON(user)), ("calls", .count(users.count)), ("refreshes", .count(refreshes)),
            ])
            Console.print(document.rendered())
            return
        }
        Console.print("\(Redaction.user(user)) (\(Redaction.printable(user.id)))")
        if count > 1 { Console.print("calls: \(users.count), all succeeded") }
        Console.print("refreshes by this process: \(refreshes)")
    }
}

/// Task groups throw `any Error`; the app's calls only throw authentication errors.
private func withThrowingTaskGroup<Result: Sendable>(
    of type: User.Type, _ body: (inout ThrowingTaskGroup<User, any Error>) async throws -> Result
) async throws(AuthenticationError) -> Result {
    do {
        return try await Swift.withThrowingTaskGroup(of: User.self) { group in try await body(&group) }
    } catch let error as AuthenticationError {
        throw error
    } catch {
        throw .temporarilyUnavailable("unexpected failure")
    }
}
