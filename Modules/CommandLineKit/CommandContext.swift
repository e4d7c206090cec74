/// What a command runs with besides its decoded arguments: where it sits on the command line and the
/// process environment.
public struct CommandContext: Sendable {
    /// The command as typed, for usage hints: `hardtack keychain dump`.
    public let commandPath: String
    /// The process environment.
    public let environment: [String: String]
    /// Everything parsed off the command line, for an option read in one place for every command
    /// (a program-wide `--verbose`, say), with the same typed declarations.
    public let values: ParsedValues

    /// Creates a context.
    init(commandPath: String, environment: [String: String], values: ParsedValues? = nil) {
        self.commandPath = commandPath
        self.environment = environment
        self.values = values ?? ParsedValues(commandPath: commandPath)
    }

    /// A usage error found while running (an option that needs the environment, say), pointing at this
    /// command's help.
    public func usageError(_ problem: String) -> UsageError {
        UsageError(problem, commandPath: commandPath)
    }
}
