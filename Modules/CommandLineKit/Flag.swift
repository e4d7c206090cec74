/// A named argument with no value (`--json`, `-U`): `@Flag("--json", help: "…") var json: Bool` is
/// `true` when given.
@propertyWrapper
public struct Flag: Decodable, Sendable {
    /// The flag as the parser and help see it.
    let declaration: ArgumentDeclaration
    /// Whether the command line gave it.
    public var wrappedValue: Bool

    /// Declares a flag with one or more names, the first one the main one.
    public init(_ name: String, _ aliases: String..., help: String) {
        declaration = ArgumentDeclaration(kind: .flag, names: [name] + aliases, valueName: nil, help: help)
        wrappedValue = false
    }

    /// The flag as the parser and help see it (`$json.synopsis` is `--json`).
    public var projectedValue: ArgumentDeclaration { declaration }

    /// Decodes whether the command line gave it, with ``ParsableArguments``.
    public init(from decoder: any Decoder) throws {
        let (declared, values) = try PropertyDecoder.declared(Self.self, decoder)
        self = declared
        wrappedValue = values.isSet(declaration)
    }

    /// `--help` (also `-h`), which every command accepts.
    static let help = Flag("--help", "-h", help: "Show this help and exit (also -h).")

    /// `--version`, which the root command accepts when it has a version.
    static let version = Flag("--version", help: "Print the version and exit.")
}

extension Flag: DeclaringProperty {
    var items: [ArgumentSet.Item] { [.argument(declaration)] }
}
