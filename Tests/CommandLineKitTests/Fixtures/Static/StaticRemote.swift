import CommandLineKit

/// A group declared with static values whose options its verb shares.
struct StaticRemote: Command {
    static let configuration = CommandConfiguration(
        name: "remote", abstract: "Work with remotes.", subcommands: [StaticRemoteAdd.self],
        subcommandNoun: "remote verb", subcommandPlaceholder: "VERB", subcommandsTitle: "Verbs")
    static let sections = [ArgumentSection("Options", StaticSharedOptions.declarations)]

    init(from values: ParsedValues) {}
}
