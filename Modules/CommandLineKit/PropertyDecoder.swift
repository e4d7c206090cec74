/// What a property wrapper decodes itself from: the wrapper as the instance made by `init()` declared it,
/// and the values parsed off the command line.
struct PropertyDecoder: Decoder {
    /// The values parsed off the command line.
    let values: ParsedValues
    /// The wrapper that declares the property.
    let declared: Any
    /// The path to the property, for errors.
    let codingPath: [any CodingKey]
    /// Nothing: arguments are decoded from the command line only.
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The declaring wrapper of type `Wrapper` and the values, when `decoder` is one of these.
    /// - Throws: `DecodingError.typeMismatch` for any other decoder (a wrapper read from JSON, say).
    static func declared<Wrapper>(_ type: Wrapper.Type, _ decoder: any Decoder) throws -> (Wrapper, ParsedValues) {
        guard let decoder = decoder as? PropertyDecoder, let declared = decoder.declared as? Wrapper else {
            throw notAnArgument(Wrapper.self, decoder.codingPath)
        }
        return (declared, decoder.values)
    }

    /// The error for anything that is not a declaring wrapper read from the command line.
    static func notAnArgument(_ type: Any.Type, _ codingPath: [any CodingKey]) -> DecodingError {
        DecodingError.typeMismatch(
            type,
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "only argument property wrappers decode, and only from a command line"))
    }

    /// Refused: a property wrapper reads the values itself.
    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw Self.notAnArgument(Key.self, codingPath)
    }

    /// Refused: a property wrapper reads the values itself.
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw Self.notAnArgument(Any.self, codingPath)
    }

    /// Refused: a property wrapper reads the values itself.
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw Self.notAnArgument(Any.self, codingPath)
    }
}
