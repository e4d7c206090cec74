import CommandLineKit

/// A leaf with every kind of argument: flags with aliases, a typed option, a repeatable option, a
/// non-empty option, a required and an optional positional.
struct Copy: Command {
    static let configuration = CommandConfiguration(
        name: "copy", abstract: "Copy a thing.", discussion: ["Copies are cheap."],
        exitStatuses: Tool.statuses.only([0, 2, 1]))

    @Flag("--verbose", "-v", help: "Say more.") var verbose: Bool
    @Option(
        "--count", value: "N", help: "How many copies.", range: 1...10,
        invalidValue: "--count takes a number from 1 to 10")
    var count: Int?
    @Option("-t", value: "TAG", help: "A tag; repeat for more.") var tags: [String]
    @Option("--name", value: "NAME", help: "A name.", allowsEmpty: false) var name: String?
    @Argument("SOURCE", help: "Where from.") var source: String
    @Argument("DEST", help: "Where to.") var destination: String?

    func run(_ context: CommandContext) async throws(CommandError) {
        if source == "missing" { throw CommandError(status: 44, message: "\(source) not found") }
    }
}
