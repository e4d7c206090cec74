/// One command-line option: its name, the name of its value (none for a flag), and its help line.
struct OptionSpec: Sendable {
    /// The option as typed: `-s` or `--store`.
    let name: String
    /// The placeholder of its value in help (`SERVICE`), or `nil` for a flag that takes none.
    let valueName: String?
    /// Whether it may be given more than once.
    let isRepeatable: Bool
    /// What it does, in one line.
    let help: String

    /// Creates an option that takes a value.
    static func value(_ name: String, _ valueName: String, _ help: String, repeatable: Bool = false) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, isRepeatable: repeatable, help: help)
    }

    /// Creates a flag.
    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, isRepeatable: false, help: help)
    }

    /// `--help`, which every command accepts.
    static let help = flag("--help", "Show this help and exit (also -h).")

    /// The option and its placeholder, as help shows them: `-s SERVICE`.
    var synopsis: String { valueName.map { "\(name) \($0)" } ?? name }
}
