import CommandLineKit

/// A leaf with an option table, a required option, one that may omit its value at the end, a repeated
/// positional, and a rule across two flags.
struct Check: Command {
    /// The table's options: a required one and a converted one.
    static let tableOptions: [(key: String, option: Option<String>)] = [
        ("host", Option("-H", value: "HOST", help: "The host.").required()),
        (
            "port",
            Option(
                "-P", value: "PORT", help: "The port.", invalidValue: "the port (-P) must be a number",
                convert: { Int($0).map(String.init) })
        ),
    ]

    static let configuration = CommandConfiguration(name: "check", abstract: "Check things.")

    @OptionTable(Check.tableOptions) var table: [String: String]
    @Option("--to", value: "FILE", help: "Where to.", allowsEmpty: false) var target: String
    @Option("-w", value: "SECRET", help: "The secret; last with no value, a prompt.") var secret: OmittableValue<String>
    @Flag("--json", help: "Print JSON.") var json: Bool
    @Flag("--text", help: "Print text.") var text: Bool
    @Argument("FILE", help: "Files to check.") var files: [String]

    func validate() throws(UsageError) {
        if json && text { throw UsageError("give --json or --text, not both") }
    }
}
