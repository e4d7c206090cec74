/// A command line that cannot be run: an unknown option, a missing or bad value, a stray argument.
/// Its message names options but never echoes a value, which may be a secret.
public struct UsageError: Error, Sendable, Equatable {
    /// What is wrong, without the help hint: `-s needs a value (-s SERVICE)`.
    public let problem: String
    /// The command whose help the message points at: `hardtack keychain dump`.
    let commandPath: String

    /// Creates an error.
    init(_ problem: String, commandPath: String) {
        self.problem = problem
        self.commandPath = commandPath
    }

    /// Creates an error for ``ParsableArguments/validate()``, whose command the parser names.
    public init(_ problem: String) {
        self.init(problem, commandPath: "")
    }

    /// The line for standard error: the problem and where to find help.
    public var message: String { "\(problem). See `\(commandPath) --help`." }
}
