/// A named argument with a value (`-s SERVICE`, `--store PATH` or `--store=PATH`), converted to
/// `Value` when decoded with ``ParsedValues``.
public struct Option<Value: Sendable>: ArgumentDeclaring {
    /// The option as the parser and help see it.
    public let declaration: ArgumentDeclaration
    /// The problem reported for a value that does not convert; it never quotes the value.
    let invalidValue: String
    /// Turns the text into a value, or `nil` when it is not one.
    let convert: @Sendable (String) -> Value?

    /// Declares an option whose text converts to `Value`.
    /// - Parameters:
    ///   - mayOmitValueAtEnd: whether it may end the command line with no value (see
    ///     ``ArgumentDeclaration/mayOmitValueAtEnd``).
    ///   - invalidValue: the problem for a value that `convert` refuses (default: `NAME takes VALUE`).
    public init(
        _ name: String, value valueName: String, help: String, isRequired: Bool = false, isRepeatable: Bool = false,
        allowsEmpty: Bool = true, mayOmitValueAtEnd: Bool = false, invalidValue: String? = nil,
        convert: @escaping @Sendable (String) -> Value?
    ) {
        declaration = ArgumentDeclaration(
            kind: .option, names: [name], valueName: valueName, help: help, isRequired: isRequired,
            isRepeatable: isRepeatable, allowsEmpty: allowsEmpty, mayOmitValueAtEnd: mayOmitValueAtEnd)
        self.invalidValue = invalidValue ?? "\(name) takes \(valueName)"
        self.convert = convert
    }

    private init(
        _ declaration: ArgumentDeclaration, invalidValue: String, convert: @escaping @Sendable (String) -> Value?
    ) {
        self.declaration = declaration
        self.invalidValue = invalidValue
        self.convert = convert
    }

    /// The same option, but one the command line must hold.
    public func required() -> Option<Value> {
        Option(declaration.required(), invalidValue: invalidValue, convert: convert)
    }
}

extension Option where Value == String {
    /// Declares an option whose value is the text as given.
    public init(
        _ name: String, value valueName: String, help: String, isRequired: Bool = false, isRepeatable: Bool = false,
        allowsEmpty: Bool = true, mayOmitValueAtEnd: Bool = false
    ) {
        self.init(
            name, value: valueName, help: help, isRequired: isRequired, isRepeatable: isRepeatable,
            allowsEmpty: allowsEmpty, mayOmitValueAtEnd: mayOmitValueAtEnd, convert: { $0 })
    }
}

extension Option where Value == Int {
    /// Declares an option that takes a whole number in `range`.
    public init(_ name: String, value valueName: String, help: String, range: ClosedRange<Int>, invalidValue: String) {
        self.init(
            name, value: valueName, help: help, invalidValue: invalidValue,
            convert: { text in Int(text).flatMap { range.contains($0) ? $0 : nil } })
    }
}
