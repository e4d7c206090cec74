import CommandLineKit

/// A leaf whose only options stand in a titled group, after a positional.
struct Grouped: Command {
    static let configuration = CommandConfiguration(name: "grouped", abstract: "Options in a group.")

    @Argument("NAME", help: "A name.") var name: String?
    @OptionGroup(title: "Home options") var home: HomeArguments
}
