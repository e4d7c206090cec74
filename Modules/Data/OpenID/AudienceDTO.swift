/// `aud`: one string, or an array of strings (RFC 7519 §4.1.3).
struct AudienceDTO: Decodable {
    let values: [String]

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let one = try? container.decode(String.self) {
            values = [one]
        } else {
            values = try container.decode([String].self)
        }
    }
}
