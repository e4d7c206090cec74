import CommandLineKit
import Testing

/// Shorthands for parsing with the test program.
enum Parse {
    /// The test program.
    static let program = CommandLineProgram(Tool.self)

    /// The command `arguments` decode to, or a failed expectation.
    static func command<C: Command>(
        _ type: C.Type, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> C {
        let invocation = try program.parse(arguments)
        guard case .run(let command, _) = invocation else {
            Issue.record("expected a command to run, got \(invocation)", sourceLocation: sourceLocation)
            throw UsageError("not a command", commandPath: "tool")
        }
        return try #require(command as? C, sourceLocation: sourceLocation)
    }

    /// The usage error `arguments` raise, or `nil` when they parse.
    static func error(_ arguments: [String]) -> UsageError? {
        do throws(UsageError) {
            _ = try program.parse(arguments)
            return nil
        } catch {
            return error
        }
    }

    /// The text `arguments` print (help or the version), or `nil` when they run a command.
    static func output(_ arguments: [String]) throws -> String? {
        guard case .output(let text) = try program.parse(arguments) else { return nil }
        return text
    }
}
