/// A command of a command-line program: what help shows (its configuration and argument sections), how
/// its arguments are decoded into a value once, and what it does. A command that is also
/// ``ParsableArguments`` declares each argument once, with a property wrapper, and gets its sections and
/// its decoding from those declarations.
///
/// A command with subcommands is a group: the parser dispatches to one of them, runs its default
/// subcommand, or shows the group's help, so a group's ``run(_:)`` is never called.
public protocol Command: Sendable {
    /// Its name, one-line abstract, discussion, subcommands and exit statuses.
    static var configuration: CommandConfiguration { get }
    /// Its options and positionals in help order, grouped under titles; the first section also lists
    /// `--help`.
    static var sections: [ArgumentSection] { get }
    /// Decodes the command from the values parsed off the command line.
    /// - Throws: ``UsageError`` for a value that does not convert or options that do not fit together.
    init(from values: ParsedValues) throws(UsageError)
    /// Runs the command.
    /// - Throws: ``CommandError`` with the exit status and the one-line message for standard error.
    func run(_ context: CommandContext) async throws(CommandError)
}

extension Command {
    /// No arguments of its own.
    public static var sections: [ArgumentSection] { [] }

    /// A group's run does nothing: the parser never calls it (it shows help or runs a subcommand).
    public func run(_ context: CommandContext) async throws(CommandError) {}

    /// Every argument in its sections, in order.
    static var argumentDeclarations: [ArgumentDeclaration] { sections.flatMap(\.declarations) }
}

extension Command where Self: ParsableArguments {
    /// The sections its property wrappers make: its own options under `Options`, its positionals under
    /// `Arguments`, each titled ``OptionGroup`` in a section of its own, in property order.
    public static var sections: [ArgumentSection] { ArgumentSet(reflecting: Self()).sections }
}
