/// A command of a command-line program: what help shows (its configuration), the arguments it declares
/// once, each with a property wrapper (as ``ParsableArguments``), from which it is decoded once, and what
/// it does.
///
/// A command with subcommands is a group: the parser dispatches to one of them, runs its default
/// subcommand, or shows the group's help, so a group's ``run(_:)`` is never called.
public protocol Command: ParsableArguments {
    /// Its name, one-line abstract, discussion, subcommands and exit statuses.
    static var configuration: CommandConfiguration { get }
    /// Runs the command.
    /// - Throws: ``CommandError`` with the exit status and the one-line message for standard error.
    func run(_ context: CommandContext) async throws(CommandError)
}

extension Command {
    /// A group's run does nothing: the parser never calls it (it shows help or runs a subcommand).
    public func run(_ context: CommandContext) async throws(CommandError) {}

    /// The help sections its property wrappers make: its own options under `Options`, its positionals under
    /// `Arguments`, each titled ``OptionGroup`` in a section of its own, in property order; the first
    /// section also lists `--help`.
    static var sections: [ArgumentSection] { ArgumentSet(reflecting: Self()).sections }

    /// Every argument in its sections, in order.
    static var argumentDeclarations: [ArgumentDeclaration] { sections.flatMap(\.declarations) }
}
