import Data
import Foundation

/// How item attributes are shown: one `    "name"<kind>=value` line each in text, one member each in
/// JSON. Strings are quoted and escaped, bytes are hex in text and base64 in JSON, dates are ISO 8601
/// in UTC. Only attributes are ever shown here, never secret data.
enum AttributeText {
    /// The class as a stable key: `genericPassword`, `internetPassword`, `certificate`, `key`, `identity`.
    static func classKey(_ itemClass: ItemClass) -> String {
        switch itemClass {
        case .genericPassword: "genericPassword"
        case .internetPassword: "internetPassword"
        case .certificate: "certificate"
        case .key: "key"
        case .identity: "identity"
        }
    }

    /// The item's class line and attribute lines, attributes sorted by name.
    static func lines(_ itemClass: ItemClass, _ attributes: ItemAttributes?) -> [String] {
        var lines = ["class: \(JSONValue.quoted(classKey(itemClass)))", "attributes:"]
        for (name, value) in sorted(attributes) {
            let shown: String
            switch value {
            case .string(let text): shown = JSONValue.quoted(text)
            case .bytes(let bytes): shown = "0x" + bytes.map { byte in hexDigits(byte) }.joined()
            case .integer(let number): shown = String(number)
            case .date(let date): shown = JSONValue.quoted(timestamp(date))
            }
            lines.append("    \(JSONValue.quoted(name.key))<\(kindName(value.kind))>=\(shown)")
        }
        return lines
    }

    /// The item as a JSON object: `class` and an `attributes` object sorted by name.
    static func json(_ itemClass: ItemClass, _ attributes: ItemAttributes?) -> JSONValue {
        let members: [(String, JSONValue)] = sorted(attributes).map { name, value in
            switch value {
            case .string(let text): (name.key, .string(text))
            case .bytes(let bytes): (name.key, .string(Data(bytes).base64EncodedString()))
            case .integer(let number): (name.key, .integer(number))
            case .date(let date): (name.key, .string(timestamp(date)))
            }
        }
        return .object([("class", .string(classKey(itemClass))), ("attributes", .object(members))])
    }

    private static func sorted(_ attributes: ItemAttributes?) -> [(AttributeName, AttributeValue)] {
        (attributes?.values ?? [:]).sorted { $0.key.key < $1.key.key }.map { ($0.key, $0.value) }
    }

    private static func kindName(_ kind: AttributeValue.Kind) -> String {
        switch kind {
        case .string: "string"
        case .bytes: "bytes"
        case .integer: "integer"
        case .date: "date"
        }
    }

    private static func hexDigits(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
