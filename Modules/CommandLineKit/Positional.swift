/// An argument taken by its position (`FILE`), converted to `Value` when decoded with ``ParsedValues``.
public struct Positional<Value: Sendable>: ArgumentDeclaring {
    /// The positional as the parser and help see it.
    public let declaration: ArgumentDeclaration
    /// The problem reported for a value that does not convert; it never quotes the value.
    let invalidValue: String
    /// Turns the text into a value, or `nil` when it is not one.
    let convert: @Sendable (String) -> Value?

    /// Declares a positional whose text converts to `Value`.
    /// - Parameters:
    ///   - isRepeatable: whether it takes every argument left (declare it last).
    public init(
        _ valueName: String, help: String, isRequired: Bool = true, isRepeatable: Bool = false,
        invalidValue: String? = nil, convert: @escaping @Sendable (String) -> Value?
    ) {
        declaration = ArgumentDeclaration(
            kind: .positional, names: [], valueName: valueName, help: help, isRequired: isRequired,
            isRepeatable: isRepeatable)
        self.invalidValue = invalidValue ?? "\(valueName) is not valid"
        self.convert = convert
    }
}

extension Positional where Value == String {
    /// Declares a positional whose value is the text as given.
    public init(_ valueName: String, help: String, isRequired: Bool = true, isRepeatable: Bool = false) {
        self.init(valueName, help: help, isRequired: isRequired, isRepeatable: isRepeatable, convert: { $0 })
    }
}
