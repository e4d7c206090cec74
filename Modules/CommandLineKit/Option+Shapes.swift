/// The options whose property is optional, an array or an ``OmittableValue``: the type of the property
/// says how many values the option takes.
extension Option {
    /// Declares an option with at most one value, converted by `convert`: an optional property.
    /// - Parameter invalidValue: the problem for a value that `convert` refuses (default: `NAME takes VALUE`).
    public init<Element>(
        _ name: String, value valueName: String, help: String, allowsEmpty: Bool = true, invalidValue: String? = nil,
        convert: @escaping @Sendable (String) -> Element?
    ) where Value == Element? {
        self.init(
            Self.declaration(name, valueName, help, isRepeatable: false, allowsEmpty: allowsEmpty),
            invalidValue: invalidValue, reader: .optional(convert))
    }

    /// Declares an option with at most one value, the text as given: a `String?` property.
    public init(_ name: String, value valueName: String, help: String, allowsEmpty: Bool = true)
    where Value == String? {
        self.init(name, value: valueName, help: help, allowsEmpty: allowsEmpty, convert: { $0 })
    }

    /// Declares an option with at most one value, a whole number in `range`: an `Int?` property.
    public init(_ name: String, value valueName: String, help: String, range: ClosedRange<Int>, invalidValue: String)
    where Value == Int? {
        self.init(
            name, value: valueName, help: help, invalidValue: invalidValue,
            convert: { text in Int(text).flatMap { range.contains($0) ? $0 : nil } })
    }

    /// Declares an option that may be repeated, each value converted by `convert`: an array property,
    /// in the order given.
    /// - Parameter invalidValue: the problem for a value that `convert` refuses (default: `NAME takes VALUE`).
    public init<Element>(
        _ name: String, value valueName: String, help: String, allowsEmpty: Bool = true, invalidValue: String? = nil,
        convert: @escaping @Sendable (String) -> Element?
    ) where Value == [Element] {
        self.init(
            Self.declaration(name, valueName, help, isRepeatable: true, allowsEmpty: allowsEmpty),
            invalidValue: invalidValue, reader: .repeated(convert))
    }

    /// Declares an option that may be repeated, each value the text as given: a `[String]` property.
    public init(_ name: String, value valueName: String, help: String, allowsEmpty: Bool = true)
    where Value == [String] {
        self.init(name, value: valueName, help: help, allowsEmpty: allowsEmpty, convert: { $0 })
    }

    /// Declares a required option that may end the command line with no value after it (see
    /// ``ArgumentDeclaration/mayOmitValueAtEnd``), its value the text as given.
    public init(_ name: String, value valueName: String, help: String, allowsEmpty: Bool = true)
    where Value == OmittableValue<String> {
        self.init(
            ArgumentDeclaration(
                kind: .option, names: [name], valueName: valueName, help: help, isRequired: true,
                allowsEmpty: allowsEmpty, mayOmitValueAtEnd: true),
            invalidValue: nil, reader: .omittable { $0 })
    }

    private static func declaration(
        _ name: String, _ valueName: String, _ help: String, isRepeatable: Bool, allowsEmpty: Bool
    ) -> ArgumentDeclaration {
        ArgumentDeclaration(
            kind: .option, names: [name], valueName: valueName, help: help, isRepeatable: isRepeatable,
            allowsEmpty: allowsEmpty)
    }
}
