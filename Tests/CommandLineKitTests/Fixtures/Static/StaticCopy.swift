import CommandLineKit

/// A leaf declared with static values (the API before property wrappers), with what that API still
/// offers: a flag with an alias, options of text, of a range and converted, and a required positional.
struct StaticCopy: Command {
    static let verbose = Flag("--verbose", "-v", help: "Say more.")
    static let count = Option<Int>(
        "--count", value: "N", help: "How many copies.", range: 1...10,
        invalidValue: "--count takes a number from 1 to 10")
    static let name = Option<String>("--name", value: "NAME", help: "A name.", allowsEmpty: false)
    static let level = Option<Bool>(
        "--level", value: "high|low", help: "How hard.", invalidValue: "--level must be high or low",
        convert: { ["high": true, "low": false][$0] })
    static let source = Positional<String>("SOURCE", help: "Where from.")

    static let configuration = CommandConfiguration(name: "copy", abstract: "Copy a thing.")
    static let sections = [
        ArgumentSection("Options", [verbose, count, name, level]), ArgumentSection("Arguments", [source]),
    ]

    let verbose: Bool
    let count: Int?
    let name: String?
    let isHigh: Bool?
    let source: String

    init(from values: ParsedValues) throws(UsageError) {
        verbose = values.isSet(Self.verbose)
        count = try values.value(Self.count)
        name = try values.value(Self.name)
        isHigh = try values.value(Self.level)
        guard let source = try values.value(Self.source) else { throw values.usageError("no source") }
        self.source = source
    }
}
