import CommandLineKit

/// The root of a program declared with static values (the API before property wrappers), which stays
/// until the last command moves to property wrappers.
struct StaticTool: Command {
    static let configuration = CommandConfiguration(
        name: "static", abstract: "The static declarations' test program.",
        subcommands: [StaticCopy.self, StaticRemote.self])

    init(from values: ParsedValues) {}
}
