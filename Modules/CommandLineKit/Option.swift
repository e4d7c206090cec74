/// A named argument with a value (`-s SERVICE`, `--store PATH` or `--store=PATH`).
///
/// Declared on the property it fills, the type of the property says how many values it takes:
/// `@Option("--to", value: "FILE", help: "…") var path: String` is required, `String?` is optional,
/// `[String]` takes every value given, and ``OmittableValue`` may end the command line without one.
/// As an entry of an ``OptionTable``, `Value` is the type of its one value; it is optional unless made
/// ``required()``.
@propertyWrapper
public struct Option<Value: Sendable>: Decodable, Sendable {
    /// The option as declared: the parser and help see it so, except that a property of a non-optional
    /// type makes it required (``projectedValue``).
    public let declaration: ArgumentDeclaration
    /// The problem reported for a value that does not convert; it never quotes the value.
    let invalidValue: String
    /// Turns the texts given into the property's value.
    let reader: ValueReader<Value>
    /// The decoded value; `nil` in the instance that only declares it.
    private var decoded: Value?

    /// Declares an option with one value, converted by `convert`: on a non-optional property, a required
    /// option; in an ``OptionTable``, an optional one (``required()`` makes it required).
    /// - Parameter invalidValue: the problem for a value that `convert` refuses (default: `NAME takes VALUE`).
    public init(
        _ name: String, value valueName: String, help: String, allowsEmpty: Bool = true, invalidValue: String? = nil,
        convert: @escaping @Sendable (String) -> Value?
    ) {
        self.init(
            ArgumentDeclaration(
                kind: .option, names: [name], valueName: valueName, help: help, allowsEmpty: allowsEmpty),
            invalidValue: invalidValue, reader: .single(convert))
    }

    /// Declares an option from its parts; `invalidValue` defaults to `NAME takes VALUE`.
    init(_ declaration: ArgumentDeclaration, invalidValue: String?, reader: ValueReader<Value>) {
        self.declaration = declaration
        self.invalidValue = invalidValue ?? "\(declaration.names[0]) takes \(declaration.valueName ?? "a value")"
        self.reader = reader
    }

    /// The same option, but one the command line must hold.
    public func required() -> Option<Value> {
        Option(declaration.required(), invalidValue: invalidValue, reader: reader)
    }

    /// The value the command line gave.
    public var wrappedValue: Value {
        get {
            guard let decoded else { preconditionFailure("\(declaration.names[0]) is read before it is decoded") }
            return decoded
        }
        set { decoded = newValue }
    }

    /// The option as the parser and help see it (`$path.synopsis` is `--to FILE`).
    public var projectedValue: ArgumentDeclaration {
        switch reader.shape {
        case .single, .omittable: declaration.required()
        case .optional, .repeated: declaration
        }
    }

    /// Decodes the value from the command line, with ``ParsableArguments/init(from:)-(ParsedValues)``.
    /// - Throws: ``UsageError`` for a value that does not convert.
    public init(from decoder: any Decoder) throws {
        let (declared, values) = try PropertyDecoder.declared(Self.self, decoder)
        self = declared
        decoded = try values.read(reader, for: projectedValue, invalidValue: invalidValue)
    }
}

extension Option: DeclaringProperty {
    var items: [ArgumentSet.Item] { [.argument(projectedValue)] }
}

extension Option where Value == String {
    /// Declares an option whose value is the text as given: on a `String` property, a required one.
    public init(_ name: String, value valueName: String, help: String, allowsEmpty: Bool = true) {
        self.init(name, value: valueName, help: help, allowsEmpty: allowsEmpty, convert: { $0 })
    }
}

extension Option where Value == Int {
    /// Declares an option that takes a whole number in `range`: on an `Int` property, a required one.
    public init(_ name: String, value valueName: String, help: String, range: ClosedRange<Int>, invalidValue: String) {
        self.init(
            name, value: valueName, help: help, invalidValue: invalidValue,
            convert: { text in Int(text).flatMap { range.contains($0) ? $0 : nil } })
    }
}
