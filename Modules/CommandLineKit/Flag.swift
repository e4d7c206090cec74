/// A named argument with no value (`--json`, `-U`); decoded with ``ParsedValues/isSet(_:)``.
public struct Flag: ArgumentDeclaring {
    /// The flag as the parser and help see it.
    public let declaration: ArgumentDeclaration

    /// Declares a flag with one or more names, the first one the main one.
    public init(_ name: String, _ aliases: String..., help: String) {
        declaration = ArgumentDeclaration(kind: .flag, names: [name] + aliases, valueName: nil, help: help)
    }

    /// `--help` (also `-h`), which every command accepts.
    public static let help = Flag("--help", "-h", help: "Show this help and exit (also -h).")

    /// `--version`, which the root command accepts when it has a version.
    public static let version = Flag("--version", help: "Print the version and exit.")
}
