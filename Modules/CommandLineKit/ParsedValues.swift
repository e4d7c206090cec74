/// The values found on a command line, kept by declaration, and the typed way to read them: a command
/// declared with static values decodes itself from this once, passing the same ``Option``, ``Flag`` or
/// ``Argument`` values it declared, so no command body looks an option up by its name. Property wrappers
/// read it for a ``ParsableArguments`` command.
public struct ParsedValues: Sendable {
    /// The command being decoded, for usage hints: `hardtack keychain dump`.
    public internal(set) var commandPath: String
    private var texts: [String: [String]] = [:]
    private var flags: Set<String> = []
    private var withoutValue: Set<String> = []

    /// Creates an empty set of values for the command at `commandPath`.
    public init(commandPath: String) {
        self.commandPath = commandPath
    }

    /// The value of an option declared as a static value, if given.
    /// - Throws: ``UsageError`` when its text does not convert.
    public func value<Value>(_ option: Option<Value>) throws(UsageError) -> Value? {
        guard has(option.declaration) else { return nil }
        return try read(option.reader, for: option.declaration, invalidValue: option.invalidValue)
    }

    /// Whether a flag declared as a static value was given.
    public func isSet(_ flag: Flag) -> Bool {
        isSet(flag.declaration)
    }

    /// The value of a positional declared as a static value, if given.
    /// - Throws: ``UsageError`` when its text does not convert.
    public func value<Value>(_ positional: Argument<Value>) throws(UsageError) -> Value? {
        guard has(positional.declaration) else { return nil }
        return try read(positional.reader, for: positional.declaration, invalidValue: positional.invalidValue)
    }

    /// A usage error pointing at this command's help, for a decoding rule of the command's own.
    public func usageError(_ problem: String) -> UsageError {
        UsageError(problem, commandPath: commandPath)
    }

    /// Whether the declaration was given at all (a flag set, or a value recorded).
    func has(_ declaration: ArgumentDeclaration) -> Bool {
        flags.contains(declaration.key) || texts[declaration.key] != nil || withoutValue.contains(declaration.key)
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
