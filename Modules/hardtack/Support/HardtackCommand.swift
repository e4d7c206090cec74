import CommandLineKit

/// A command of `hardtack` that runs: it fails with a ``CommandFailure``, which knows its exit status and
/// its message, and this turns that into the framework's ``CommandError`` in one place.
protocol HardtackCommand: Command {
    /// Runs the command.
    /// - Throws: ``CommandFailure`` with the reason it stopped.
    func execute(_ context: CommandContext) async throws(CommandFailure)
}

extension HardtackCommand {
    /// Runs ``execute(_:)`` and maps its failure to an exit status and a line for standard error.
    func run(_ context: CommandContext) async throws(CommandError) {
        do throws(CommandFailure) {
            try await execute(context)
        } catch {
            let verbose = (try? Verbosity(from: context.values))?.isVerbose ?? false
            throw CommandError(status: error.status.rawValue, message: error.message(verbose: verbose))
        }
    }
}
