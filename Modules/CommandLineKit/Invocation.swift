/// What a command line asks for, once parsed.
enum Invocation: Sendable {
    /// Print this text (help or the version) on standard output and exit 0.
    case output(String)
    /// Run this command, decoded from its arguments, in this context.
    case run(any Command, CommandContext)
}
