/// What help and dispatch know about a command besides its arguments.
public struct CommandConfiguration: Sendable {
    /// The name as typed: `keychain`, `add-generic-password`; for the root, the program's name.
    public var name: String
    /// What it does, in one line (its entry in the parent's list and the first paragraph of its help).
    public var abstract: String
    /// The usage line after the command's path, or `nil` for one made from its arguments
    /// (`[OPTIONS] FILE`, or `COMMAND [OPTIONS]` for a group).
    public var usage: String?
    /// Paragraphs that follow the argument sections in help.
    public var discussion: [String]
    /// Environment variables help lists, as (name, what it does).
    public var environment: [(name: String, help: String)]
    /// The subcommands, in help order.
    public var subcommands: [any Command.Type]
    /// The subcommand run when none is named, or `nil` to show help instead.
    public var defaultSubcommand: (any Command.Type)?
    /// What a subcommand is called: `command`, `keychain verb` (in errors and the help's last line).
    public var subcommandNoun: String
    /// The placeholder of a subcommand in help: `COMMAND`, `VERB`.
    public var subcommandPlaceholder: String
    /// The title of the list of subcommands in help: `Commands`, `Verbs`.
    public var subcommandsTitle: String
    /// The program's version, printed by `--version` (only the root's counts), or `nil` for no `--version`.
    public var version: String?
    /// The exit statuses help lists for this command (empty: none listed).
    public var exitStatuses: ExitStatusTable
    /// Words added to the error for an argument left over, such as `a value must follow its option`.
    public var strayArgumentHint: String?
    /// Whether the parent's help leaves it out (it still runs).
    public var isHidden: Bool

    /// Creates a configuration; only the name and abstract are required.
    public init(
        name: String, abstract: String, usage: String? = nil, discussion: [String] = [],
        environment: [(name: String, help: String)] = [], subcommands: [any Command.Type] = [],
        defaultSubcommand: (any Command.Type)? = nil, subcommandNoun: String = "command",
        subcommandPlaceholder: String = "COMMAND", subcommandsTitle: String = "Commands", version: String? = nil,
        exitStatuses: ExitStatusTable = ExitStatusTable([]), strayArgumentHint: String? = nil, isHidden: Bool = false
    ) {
        self.name = name
        self.abstract = abstract
        self.usage = usage
        self.discussion = discussion
        self.environment = environment
        self.subcommands = subcommands
        self.defaultSubcommand = defaultSubcommand
        self.subcommandNoun = subcommandNoun
        self.subcommandPlaceholder = subcommandPlaceholder
        self.subcommandsTitle = subcommandsTitle
        self.version = version
        self.exitStatuses = exitStatuses
        self.strayArgumentHint = strayArgumentHint
        self.isHidden = isHidden
    }
}
