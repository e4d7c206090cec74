/// An argument taken by its position (`FILE`): `@Argument("SOURCE", help: "…") var source: String` is
/// required, `String?` optional, and `[String]` takes every argument left (declare it last).
@propertyWrapper
public struct Argument<Value: Sendable>: Decodable, Sendable {
    /// The positional as the parser and help see it.
    let declaration: ArgumentDeclaration
    /// The problem reported for a value that does not convert; it never quotes the value.
    let invalidValue: String
    /// Turns the texts given into the property's value.
    let reader: ValueReader<Value>
    /// The decoded value; `nil` in the instance that only declares it.
    private var decoded: Value?

    /// Declares a required positional whose text converts to `Value`.
    /// - Parameter invalidValue: the problem for a value that `convert` refuses (default: `NAME is not valid`).
    public init(
        _ valueName: String, help: String, invalidValue: String? = nil, convert: @escaping @Sendable (String) -> Value?
    ) {
        self.init(valueName, help, invalidValue, .single(convert))
    }

    private init(_ valueName: String, _ help: String, _ invalidValue: String?, _ reader: ValueReader<Value>) {
        declaration = ArgumentDeclaration(
            kind: .positional, names: [], valueName: valueName, help: help, isRequired: reader.shape == .single,
            isRepeatable: reader.shape == .repeated)
        self.invalidValue = invalidValue ?? "\(valueName) is not valid"
        self.reader = reader
    }

    /// The value the command line gave.
    public var wrappedValue: Value {
        get {
            guard let decoded else { preconditionFailure("\(declaration.synopsis) is read before it is decoded") }
            return decoded
        }
        set { decoded = newValue }
    }

    /// The positional as the parser and help see it (`$source.synopsis` is `SOURCE`).
    public var projectedValue: ArgumentDeclaration { declaration }

    /// Decodes the value from the command line, with ``ParsableArguments``.
    /// - Throws: ``UsageError`` for a value that does not convert.
    public init(from decoder: any Decoder) throws {
        let (declared, values) = try PropertyDecoder.declared(Self.self, decoder)
        self = declared
        decoded = try values.read(reader, for: declaration, invalidValue: invalidValue)
    }
}

extension Argument: DeclaringProperty {
    var items: [ArgumentSet.Item] { [.argument(declaration)] }
}

extension Argument where Value == String {
    /// Declares a required positional whose value is the text as given.
    public init(_ valueName: String, help: String) {
        self.init(valueName, help: help, convert: { $0 })
    }
}

extension Argument {
    /// Declares an optional positional whose text converts to `Element`: an optional property.
    public init<Element>(
        _ valueName: String, help: String, invalidValue: String? = nil,
        convert: @escaping @Sendable (String) -> Element?
    ) where Value == Element? {
        self.init(valueName, help, invalidValue, .optional(convert))
    }

    /// Declares an optional positional whose value is the text as given: a `String?` property.
    public init(_ valueName: String, help: String) where Value == String? {
        self.init(valueName, help: help, convert: { $0 })
    }

    /// Declares a positional that takes every argument left, each converted to `Element`: an array
    /// property, empty when none is given.
    public init<Element>(
        _ valueName: String, help: String, invalidValue: String? = nil,
        convert: @escaping @Sendable (String) -> Element?
    ) where Value == [Element] {
        self.init(valueName, help, invalidValue, .repeated(convert))
    }

    /// Declares a positional that takes every argument left, as given: a `[String]` property.
    public init(_ valueName: String, help: String) where Value == [String] {
        self.init(valueName, help: help, convert: { $0 })
    }
}
