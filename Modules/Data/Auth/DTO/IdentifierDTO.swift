/// A user identifier as real servers send it: a JSON string, or a JSON integer (`{"userId": 1}`),
/// kept as its decimal text. Anything else (a fraction, a Boolean, an object, an array) is refused,
/// so the rest of the strict decoding still holds; an empty string is left for the mapping to refuse
/// with its own message.
struct IdentifierDTO: Decodable, Equatable {
    /// The identifier as text: the string itself, or the integer in decimal.
    let text: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            text = string
        } else if let number = try? container.decode(Int64.self), !Self.isBoolean(container) {
            text = String(number)
        } else if let number = try? container.decode(UInt64.self), !Self.isBoolean(container) {
            text = String(number)
        } else {
            throw DecodingError.typeMismatch(
                String.self,
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "not a string or an integer"))
        }
    }

    /// Whether the value is `true` or `false`, which some decoders would otherwise read as 1 or 0.
    private static func isBoolean(_ container: any SingleValueDecodingContainer) -> Bool {
        (try? container.decode(Bool.self)) != nil
    }
}
