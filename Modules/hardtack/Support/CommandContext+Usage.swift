import CommandLineKit

extension CommandContext {
    /// A usage failure found while running, pointing at this command's help.
    func usage(_ problem: String) -> CommandFailure {
        .usage(usageError(problem).message)
    }
}
