public import Domain
import Foundation

/// Conveniences over the four operations: one-item lookups with four outcomes, strict UTF-8 strings,
/// and Codable values.
extension SecureItemTransaction {
    /// Finds with default parts: the data.
    public func find(_ query: ItemAttributes, limit: MatchLimit = .one) throws(SecureStoreError) -> [StoredItem] {
        try find(query, limit: limit, returning: .data)
    }

    /// Updates the data only.
    @discardableResult
    public func update(_ query: ItemAttributes, data: SecretBytes) throws(SecureStoreError) -> Int {
        try update(query, attributes: nil, data: data)
    }

    /// Reads the first item matching `query`, telling found, not found, locked and damaged apart.
    public func lookup(_ query: ItemAttributes, returning parts: ItemParts = .data) -> ItemLookup {
        do {
            let items = try find(query, limit: .one, returning: parts)
            return items.first.map(ItemLookup.found) ?? .notFound
        } catch .itemNotFound {
            return .notFound
        } catch .locked {
            return .locked
        } catch {
            return .damaged(error)
        }
    }

    /// The data of the first matching item as a string.
    /// - Throws: ``SecureStoreError/invalidData(_:)`` when the bytes are not valid UTF-8 (never
    ///   repaired), ``SecureStoreError/itemNotFound`` when nothing matches.
    public func findString(_ query: ItemAttributes) throws(SecureStoreError) -> String {
        guard let data = try find(query, limit: .one, returning: .data).first?.data else { throw .itemNotFound }
        guard let string = data.revealedString() else { throw .invalidData("the secret is not valid UTF-8") }
        return string
    }

    /// Adds or updates an item whose data is `string` in UTF-8.
    @discardableResult
    public func addOrUpdate(_ attributes: ItemAttributes, string: String) throws(SecureStoreError)
        -> AddOrUpdateOutcome
    {
        try addOrUpdate(attributes, data: SecretBytes(utf8: string))
    }

    /// Adds or updates an item whose data is `value` encoded as JSON.
    /// - Throws: ``SecureStoreError/invalidData(_:)`` when the value cannot be encoded.
    @discardableResult
    public func addOrUpdate<Value: Encodable>(_ attributes: ItemAttributes, value: Value) throws(SecureStoreError)
        -> AddOrUpdateOutcome
    {
        let data: SecretBytes
        do {
            var encoded = try JSONEncoder().encode(value)
            data = SecretBytes(encoded)
            encoded.resetBytes(in: 0..<encoded.count)
        } catch {
            throw .invalidData("the value could not be encoded as JSON")
        }
        return try addOrUpdate(attributes, data: data)
    }

    /// The data of the first matching item decoded from JSON.
    /// - Throws: ``SecureStoreError/invalidData(_:)`` when it does not decode as `type`.
    public func findValue<Value: Decodable>(_ type: Value.Type, _ query: ItemAttributes) throws(SecureStoreError)
        -> Value
    {
        guard let data = try find(query, limit: .one, returning: .data).first?.data else { throw .itemNotFound }
        do {
            var copy = data.withUnsafeBytes { Data($0) }
            defer { copy.resetBytes(in: 0..<copy.count) }
            return try JSONDecoder().decode(type, from: copy)
        } catch {
            throw .invalidData("the data does not decode as \(Value.self)")
        }
    }
}
