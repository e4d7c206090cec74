@testable import CommandLineKit
import Testing

/// Shorthands for parsing with a test program (by default `tool`).
enum Parse {
    /// The test program.
    static let program = CommandLineProgram(Tool.self)

    /// The command `arguments` decode to, or a failed expectation.
    static func command<C: Command>(
        _ type: C.Type, _ arguments: [String], program: CommandLineProgram = program,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> C {
        try run(type, arguments, program: program, sourceLocation: sourceLocation).command
    }

    /// The command `arguments` decode to and its context, or a failed expectation.
    static func run<C: Command>(
        _ type: C.Type, _ arguments: [String], program: CommandLineProgram = program,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (command: C, context: CommandContext) {
        let invocation = try program.parse(arguments)
        guard case .run(let command, let context) = invocation else {
            Issue.record("expected a command to run, got \(invocation)", sourceLocation: sourceLocation)
            throw UsageError("not a command", commandPath: program.root.configuration.name)
        }
        return (try #require(command as? C, sourceLocation: sourceLocation), context)
    }

    /// The usage error `arguments` raise, or `nil` when they parse.
    static func error(_ arguments: [String], program: CommandLineProgram = program) -> UsageError? {
        do throws(UsageError) {
            _ = try program.parse(arguments)
            return nil
        } catch {
            return error
        }
    }

    /// The text `arguments` print (help or the version), or `nil` when they run a command.
    static func output(_ arguments: [String], program: CommandLineProgram = program) throws -> String? {
        guard case .output(let text) = try program.parse(arguments) else { return nil }
        return text
    }
}
