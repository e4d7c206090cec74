/// Options several commands share (which store, which server), declared once and decoded once into a
/// value that the commands hold.
public protocol OptionGroup: Sendable {
    /// Its options, in help order.
    static var declarations: [any ArgumentDeclaring] { get }
    /// Decodes the group from the values parsed off the command line.
    /// - Throws: ``UsageError`` for a value that does not convert.
    init(from values: ParsedValues) throws(UsageError)
}
