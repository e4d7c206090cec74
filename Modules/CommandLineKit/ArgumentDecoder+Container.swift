extension ArgumentDecoder {
    /// The properties of one ``ParsableArguments`` value, each decoded by its wrapper.
    struct Container<Key: CodingKey>: KeyedDecodingContainerProtocol {
        /// The decoder this container reads for.
        let decoder: ArgumentDecoder

        var codingPath: [any CodingKey] { decoder.codingPath }

        /// The keys of the declaring properties that this key type knows.
        var allKeys: [Key] { decoder.arguments.properties.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { decoder.arguments.properties[key.stringValue] != nil }

        /// Never `nil`: a declaring property always decodes, to its type's empty value if nothing was given.
        func decodeNil(forKey key: Key) throws -> Bool { false }

        /// The property at `key`, decoded by the wrapper that declares it.
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard let declared = decoder.arguments.properties[key.stringValue] else {
                throw PropertyDecoder.notAnArgument(T.self, codingPath + [key])
            }
            return try T(
                from: PropertyDecoder(values: decoder.values, declared: declared, codingPath: codingPath + [key]))
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            throw PropertyDecoder.notAnArgument(NestedKey.self, codingPath + [key])
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw PropertyDecoder.notAnArgument(Any.self, codingPath + [key])
        }

        func superDecoder() throws -> any Decoder {
            throw PropertyDecoder.notAnArgument(Any.self, codingPath)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            throw PropertyDecoder.notAnArgument(Any.self, codingPath + [key])
        }
    }
}
