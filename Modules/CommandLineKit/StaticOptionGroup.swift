/// Options several commands share, declared as static values and decoded by hand (the API before
/// property wrappers; a ``ParsableArguments`` group embedded with ``OptionGroup`` replaces it).
public protocol StaticOptionGroup: Sendable {
    /// Its options, in help order.
    static var declarations: [any ArgumentDeclaring] { get }
    /// Decodes the group from the values parsed off the command line.
    /// - Throws: ``UsageError`` for a value that does not convert.
    init(from values: ParsedValues) throws(UsageError)
}
