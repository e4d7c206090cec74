/// The values found on a command line, kept by declaration: the property wrappers of a
/// ``ParsableArguments`` type decode themselves from it (``ParsableArguments/init(from:)-(ParsedValues)``),
/// so no command body looks an option up by its name.
public struct ParsedValues: Sendable {
    /// The command being decoded, for usage hints: `hardtack keychain dump`.
    var commandPath: String
    private var texts: [String: [String]] = [:]
    private var flags: Set<String> = []
    private var withoutValue: Set<String> = []

    /// Creates an empty set of values for the command at `commandPath`.
    init(commandPath: String) {
        self.commandPath = commandPath
    }

    /// A usage error pointing at this command's help.
    func usageError(_ problem: String) -> UsageError {
        UsageError(problem, commandPath: commandPath)
    }

    /// Whether the declaration was given at all (a flag set, or a value recorded).
    func has(_ declaration: ArgumentDeclaration) -> Bool {
        flags.contains(declaration.key) || texts[declaration.key] != nil || withoutValue.contains(declaration.key)
    }

    /// The names of `group`'s options that were given (`--issuer`), in declaration order: for a command
    /// that must refuse options a parent group read before its name.
    public func givenNames<Group: ParsableArguments>(of group: Group.Type) -> [String] {
        ArgumentSet(reflecting: Group()).sections.flatMap(\.declarations).filter(has).compactMap(\.names.first)
    }

    /// Whether the flag `declaration` was given.
    func isSet(_ declaration: ArgumentDeclaration) -> Bool {
        flags.contains(declaration.key)
    }

    /// The property value `reader` makes of what was given for `declaration`.
    /// - Throws: ``UsageError`` with `invalidValue` when a text does not convert, or saying the argument is
    ///   required when nothing was given for one that needs a value (the parser checks that first).
    func read<Value>(
        _ reader: ValueReader<Value>, for declaration: ArgumentDeclaration, invalidValue: String
    ) throws(UsageError) -> Value {
        do throws(ValueReader<Value>.Failure) {
            return try reader.value(
                texts: texts(of: declaration), givenWithoutValue: withoutValue.contains(declaration.key))
        } catch .invalid {
            throw usageError(invalidValue)
        } catch {
            throw usageError("\(declaration.synopsis) is required")
        }
    }

    /// The texts recorded for a declaration.
    func texts(of declaration: ArgumentDeclaration) -> [String] {
        texts[declaration.key] ?? []
    }

    /// Records a value.
    mutating func add(_ text: String, for declaration: ArgumentDeclaration) {
        texts[declaration.key, default: []].append(text)
    }

    /// Records an option that ended the command line with no value.
    mutating func setWithoutValue(_ declaration: ArgumentDeclaration) {
        withoutValue.insert(declaration.key)
    }

    /// Records a flag.
    mutating func set(_ declaration: ArgumentDeclaration) {
        flags.insert(declaration.key)
    }
}
