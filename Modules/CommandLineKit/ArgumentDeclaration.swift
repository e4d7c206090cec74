/// One flag, option or positional as the parser and help see it, whatever the type of its value.
public struct ArgumentDeclaration: Sendable {
    /// What kind of argument it is.
    public enum Kind: Sendable, Equatable {
        /// A name with no value: `--json`.
        case flag
        /// A name and a value: `-s SERVICE`, `--store=PATH`.
        case option
        /// A value by position: `FILE`.
        case positional
    }

    /// What kind of argument it is.
    public let kind: Kind
    /// The names as typed, the first one the main one (`--help`, `-h`); empty for a positional.
    public let names: [String]
    /// The placeholder of its value in help (`SERVICE`, `FILE`); `nil` for a flag.
    public let valueName: String?
    /// What it does, in one line.
    public let help: String
    /// Whether the command line must hold it.
    public let isRequired: Bool
    /// Whether it may be given more than once (a positional: whether it takes every argument left).
    public let isRepeatable: Bool
    /// Whether an empty value (`--store ""`) is accepted.
    public let allowsEmpty: Bool
    /// Whether the option may end the command line with no value after it (macOS `security`'s `-w`,
    /// which then prompts); an ``OmittableValue`` property tells that case apart.
    public let mayOmitValueAtEnd: Bool

    /// Creates a declaration.
    init(
        kind: Kind, names: [String], valueName: String?, help: String, isRequired: Bool = false,
        isRepeatable: Bool = false, allowsEmpty: Bool = true, mayOmitValueAtEnd: Bool = false
    ) {
        precondition(kind == .positional ? names.isEmpty && valueName != nil : !names.isEmpty)
        self.mayOmitValueAtEnd = mayOmitValueAtEnd
        self.kind = kind
        self.names = names
        self.valueName = valueName
        self.help = help
        self.isRequired = isRequired
        self.isRepeatable = isRepeatable
        self.allowsEmpty = allowsEmpty
    }

    /// The key its values are kept under: the main name, or `<FILE>` for a positional (option names
    /// start with `-`, so the two never meet).
    var key: String { names.first ?? "<\(valueName ?? "")>" }

    /// How help shows it in a list: `-s SERVICE`, `--json`, `FILE`.
    public var synopsis: String {
        switch kind {
        case .flag: names[0]
        case .option: "\(names[0]) \(valueName ?? "VALUE")"
        case .positional: valueName ?? "VALUE"
        }
    }

    /// How a usage line shows it: optional arguments in brackets, repeatable positionals with `...`.
    public var usageSynopsis: String {
        let shown = kind == .positional && isRepeatable ? synopsis + "..." : synopsis
        return isRequired ? shown : "[\(shown)]"
    }

    /// A copy that must be given (for `add`, which needs the whole unique key that `find` may leave out).
    func required() -> ArgumentDeclaration {
        ArgumentDeclaration(
            kind: kind, names: names, valueName: valueName, help: help, isRequired: true, isRepeatable: isRepeatable,
            allowsEmpty: allowsEmpty, mayOmitValueAtEnd: mayOmitValueAtEnd)
    }
}
