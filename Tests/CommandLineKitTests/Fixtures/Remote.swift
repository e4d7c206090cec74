import CommandLineKit

/// A group whose options its verbs share, like `hardtack keychain`.
struct Remote: Command {
    static let configuration = CommandConfiguration(
        name: "remote", abstract: "Work with remotes.", usage: "[GLOBAL OPTIONS] VERB [OPTIONS]",
        subcommands: [RemoteAdd.self], subcommandNoun: "remote verb", subcommandPlaceholder: "VERB",
        subcommandsTitle: "Verbs")

    @OptionGroup(title: "Global options") var shared: SharedOptions
}
