import CommandLineKit

/// A verb with a required `-w VALUE` short option, a short flag, and the group's options.
struct RemoteAdd: Command {
    static let configuration = CommandConfiguration(
        name: "add", abstract: "Add a remote.", usage: usageSynopsis + " [GLOBAL OPTIONS]",
        strayArgumentHint: "a value must follow its option")

    @Option("-w", value: "SECRET", help: "The secret; `-w -` reads standard input.") var secret: String
    @Flag("-U", help: "Update when it exists.") var update: Bool
    @OptionGroup(title: "Global options") var shared: SharedOptions
}
