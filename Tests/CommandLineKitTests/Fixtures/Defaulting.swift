import CommandLineKit

/// A root that runs a default subcommand when none is named.
struct Defaulting: Command {
    static let configuration = CommandConfiguration(
        name: "defaulting", abstract: "Runs hidden when given nothing.", subcommands: [Hidden.self],
        defaultSubcommand: Hidden.self)
}
