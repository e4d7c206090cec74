import CommandLineKit

/// The static-declaration twin of ``Copy`` (the API before property wrappers): a leaf with every kind of argument: flags with aliases, a typed option, a repeatable option, a
/// non-empty option, a required and an optional positional.
struct StaticCopy: Command {
    static let verbose = Flag("--verbose", "-v", help: "Say more.")
    static let count = Option<Int>(
        "--count", value: "N", help: "How many copies.", range: 1...10,
        invalidValue: "--count takes a number from 1 to 10")
    static let tag = Option<String>("-t", value: "TAG", help: "A tag; repeat for more.", isRepeatable: true)
    static let name = Option<String>("--name", value: "NAME", help: "A name.", allowsEmpty: false)
    static let source = Positional<String>("SOURCE", help: "Where from.")
    static let destination = Positional<String>("DEST", help: "Where to.", isRequired: false)

    static let configuration = CommandConfiguration(
        name: "copy", abstract: "Copy a thing.", discussion: ["Copies are cheap."],
        exitStatuses: Tool.statuses.only([0, 2, 1]))
    static let sections = [
        ArgumentSection("Options", [verbose, count, tag, name]), ArgumentSection("Arguments", [source, destination]),
    ]

    let verbose: Bool
    let count: Int?
    let tags: [String]
    let name: String?
    let source: String
    let destination: String?

    init(from values: ParsedValues) throws(UsageError) {
        verbose = values.isSet(Self.verbose)
        count = try values.value(Self.count)
        tags = try values.values(Self.tag)
        name = try values.value(Self.name)
        guard let source = try values.value(Self.source) else { throw values.usageError("no source") }
        self.source = source
        destination = try values.value(Self.destination)
    }

    func run(_ context: CommandContext) async throws(CommandError) {
        if source == "missing" { throw CommandError(status: 44, message: "\(source) not found") }
    }
}
