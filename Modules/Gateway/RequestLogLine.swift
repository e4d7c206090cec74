import Data
import Foundation

/// One request as the log shows it: the method, the path without its query (a query may carry a code or
/// a state), the route, the status and the time taken; for an answer whose stream was cut short, why
/// and after how many bytes. Never a header, a cookie or a body.
struct RequestLogLine {
    let request: HTTPRequest
    let route: String
    let status: Int
    let duration: Duration
    /// Why a streamed answer ended early (`upstream_lost`, `browser_gone`…) and the bytes sent before.
    var cut: (reason: String, bytes: Int)?

    /// The line: one JSON object, its keys sorted. Written by hand (every call logs one: `JSONSerialization`
    /// cost the gateway an eighth of its time per call).
    var json: String {
        let path = request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        var shown = ""
        for scalar in path.prefix(256).unicodeScalars {
            shown.unicodeScalars.append(scalar.value < 0x20 || scalar.value == 0x7F ? "?" : scalar)
        }
        let microseconds = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
        let milliseconds = "\(microseconds / 1000).\(String(1000 + microseconds % 1000).dropFirst())"
        var line = "{"
        if let cut { line += #""bytes":\#(cut.bytes),"# }
        line += #""method":"# + Self.quoted(String(request.method.prefix(16))) + #","ms":"# + milliseconds
        line += #","path":"# + Self.quoted(shown) + #","route":"# + Self.quoted(route) + #","status":\#(status)"#
        if let cut { line += #","stream":"# + Self.quoted(cut.reason) }
        return line + "}"
    }

    /// `text` as a JSON string: quotation mark, backslash and control characters escaped, the rest as it is.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\u" + String(String(scalar.value + 0x10000, radix: 16).dropFirst())
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
