import CommandLineKit

/// `--verbose`: accepted by the root and by every command that opens the store (before or after its
/// name), and read once, for the message of whatever failure ends the command.
struct Verbosity: ParsableArguments {
    /// Whether `--verbose` was given.
    @Flag("--verbose", help: "When the store fails, add the backend's own words (result code, statement, errno).")
    var isVerbose: Bool
}
