/// A JSON value written by hand, so the dump's layout and escaping are fixed and its keys keep the
/// order they are given in.
enum JSONValue: Sendable {
    /// A string.
    case string(String)
    /// An integer.
    case integer(Int64)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
    /// An array.
    case array([JSONValue])
    /// An object, with its keys in order.
    case object([(String, JSONValue)])

    /// The value as indented JSON text.
    func rendered(indent: Int = 0) -> String {
        let inner = String(repeating: "  ", count: indent + 1)
        let outer = String(repeating: "  ", count: indent)
        switch self {
        case .string(let text):
            return Self.quoted(text)
        case .integer(let number):
            return String(number)
        case .bool(let value):
            return value ? "true" : "false"
        case .null:
            return "null"
        case .array(let elements):
            guard !elements.isEmpty else { return "[]" }
            let body = elements.map { inner + $0.rendered(indent: indent + 1) }.joined(separator: ",\n")
            return "[\n\(body)\n\(outer)]"
        case .object(let members):
            guard !members.isEmpty else { return "{}" }
            let body = members.map { inner + Self.quoted($0.0) + ": " + $0.1.rendered(indent: indent + 1) }
                .joined(separator: ",\n")
            return "{\n\(body)\n\(outer)}"
        }
    }

    /// An integer member from a count.
    static func count(_ number: Int) -> JSONValue { .integer(Int64(number)) }

    /// `text` as a JSON string literal: quotes, backslashes and control characters escaped.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
