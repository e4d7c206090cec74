import CommandLineKit

/// The root of the test program: `tool`, with a leaf, a group and a hidden command.
struct Tool: Command {
    static let statuses = ExitStatusTable([
        .init(status: 0, meaning: "success"), .init(status: 1, meaning: "anything else"),
        .init(status: 2, meaning: "usage error"), .init(status: 44, meaning: "not found"),
    ])

    static let configuration = CommandConfiguration(
        name: "tool", abstract: "A tool for the parser's tests.",
        environment: [(name: "TOOL_HOME", help: "Where the tool lives.")],
        subcommands: [Copy.self, Remote.self, Hidden.self], version: "1.2.3")
}
