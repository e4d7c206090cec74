/// The plaintext preferences file older versions kept tokens in (what the seeds kept in
/// UserDefaults): a JSON object such as `{"Authorization": "...", "refresh": "..."}`. The names the
/// seeds used are all accepted.
struct LegacyPreferencesDTO: Decodable {
    let values: [String: String]

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode([String: LegacyValue].self)
        values = raw.compactMapValues(\.text)
    }

    /// A value in the file: tokens are strings; anything else is kept out.
    private enum LegacyValue: Decodable {
        case text(String)
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            self = (try? container.decode(String.self)).map(LegacyValue.text) ?? .other
        }

        var text: String? { if case .text(let value) = self { value } else { nil } }
    }
}
