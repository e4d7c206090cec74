/// The options found on a command line: values by option name, in the order given, and flags.
struct ParsedOptions: Sendable {
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// The value of a single-valued option, if given.
    func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable option, in order.
    func values(_ name: String) -> [String] { values[name] ?? [] }

    /// Whether a flag, or an option with a value, was given.
    func has(_ name: String) -> Bool { flags.contains(name) || values[name] != nil }

    /// Records a value.
    mutating func add(_ value: String, for name: String) { values[name, default: []].append(value) }

    /// Records a flag.
    mutating func set(_ name: String) { flags.insert(name) }
}
