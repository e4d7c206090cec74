/// The decoder a ``ParsableArguments`` type decodes itself from: its synthesized `init(from:)` asks for
/// each property by its coding key, and gets a ``PropertyDecoder`` holding the wrapper that declared
/// it and the values parsed off the command line.
struct ArgumentDecoder: Decoder {
    /// The values parsed off the command line.
    let values: ParsedValues
    /// The arguments the type declares, and the wrappers that declare them.
    let arguments: ArgumentSet
    /// The properties decoded so far, for errors.
    var codingPath: [any CodingKey] = []
    /// Nothing: arguments are decoded from the command line only.
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The container the synthesized `init(from:)` reads the properties from.
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Container(decoder: self))
    }

    /// Refused: arguments are properties, read by key.
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw PropertyDecoder.notAnArgument(Any.self, codingPath)
    }

    /// Refused: arguments are properties, read by key.
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw PropertyDecoder.notAnArgument(Any.self, codingPath)
    }
}
