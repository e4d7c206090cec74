/// Options chosen when the program runs rather than written as properties (the attribute options of a
/// password class, say), each with the key its value is filed under:
/// `@OptionTable(kind.selectorOptions) var attributes: [AttributeName: AttributeValue]` holds the
/// options given. Each option is declared once, in the table; it is optional unless declared
/// ``Option/required()``.
@propertyWrapper
public struct OptionTable<Key: Hashable & Sendable, Element: Sendable>: Decodable, Sendable {
    /// The options, in help order, each with its key.
    let entries: [(key: Key, option: Option<Element>)]
    /// The decoded values; `nil` in the instance that only declares them.
    private var decoded: [Key: Element]?

    /// Declares the options in `entries`, in help order.
    public init(_ entries: [(key: Key, option: Option<Element>)]) {
        self.entries = entries
    }

    /// The values the command line gave, by key.
    public var wrappedValue: [Key: Element] {
        get {
            guard let decoded else { preconditionFailure("an option table is read before it is decoded") }
            return decoded
        }
        set { decoded = newValue }
    }

    /// Decodes the values given, with ``ParsableArguments``.
    /// - Throws: ``UsageError`` for a value that does not convert.
    public init(from decoder: any Decoder) throws {
        let (declared, values) = try PropertyDecoder.declared(Self.self, decoder)
        self = declared
        var decoded: [Key: Element] = [:]
        for (key, option) in entries where values.has(option.declaration) {
            decoded[key] = try values.read(option.reader, for: option.declaration, invalidValue: option.invalidValue)
        }
        self.decoded = decoded
    }
}

extension OptionTable: DeclaringProperty {
    var items: [ArgumentSet.Item] { entries.map { .argument($0.option.declaration) } }
}
