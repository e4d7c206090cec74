import Composition
import Domain

/// `hardtack me`: an authorized call to `/api/me`, refreshing on the way when needed.
enum MeCommand {
    static let concurrent = OptionSpec.value(
        "--concurrent", "N", "Send N calls at once (1–1000) and report how many refreshes this process made.")

    static let command = AppCommand(
        name: "me", summary: "Call GET /api/me with the access token; refresh first if it expired, once on a 401.",
        options: [concurrent], operands: "", usesServer: true,
        notes: [
            "Concurrent calls share one refresh, and processes sharing the store refresh once between them: the "
                + "line `refreshes by this process: N` shows this process's part."
        ],
        run: { context, _ throws(CommandFailure) in
            let count = try callCount(context)
            let app = try context.app()
            let users = try await authStep { () async throws(AuthenticationError) in
                try await withThrowingTaskGroup(of: User.self) { group in
                    for _ in 0..<count { group.addTask { try await app.currentUser() } }
                    return try await group.reduce(into: [User]()) { $0.append($1) }
                }
            }
            let user = users[0]
            Console.print("\(Redaction.user(user)) (\(Redaction.printable(user.id)))")
            if count > 1 { Console.print("calls: \(users.count), all succeeded") }
            Console.print("refreshes by this process: \(await app.refreshSession.refreshCount)")
        })

    private static func callCount(_ context: AppContext) throws(CommandFailure) -> Int {
        guard let text = context.options.value(concurrent.name) else { return 1 }
        guard let count = Int(text), (1...1000).contains(count) else {
            throw context.usage("--concurrent takes a number from 1 to 1000")
        }
        return count
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
