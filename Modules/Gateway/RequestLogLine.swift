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

    /// The line: one JSON object, its keys sorted. Written by hand into one buffer (every call logs one:
    /// `JSONSerialization` cost the gateway an eighth of its time per call).
    var json: String {
        let path = request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        var shown = String.UnicodeScalarView()
        for scalar in path.prefix(256).unicodeScalars {
            shown.append(scalar.value < 0x20 || scalar.value == 0x7F ? "?" : scalar)
        }
        let microseconds = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
        var line: [UInt8] = []
        line.reserveCapacity(128 + shown.count)
        line.append(UInt8(ascii: "{"))
        if let cut {
            Self.append(#""bytes":"#, to: &line)
            Self.append(String(cut.bytes), to: &line)
            line.append(UInt8(ascii: ","))
        }
        Self.append(#""method":"#, to: &line)
        Self.appendQuoted(String(request.method.prefix(16)).unicodeScalars, to: &line)
        Self.append(#","ms":"#, to: &line)
        Self.append(String(microseconds / 1000), to: &line)
        line.append(UInt8(ascii: "."))
        Self.append(String(String(1000 + microseconds % 1000).dropFirst()), to: &line)
        Self.append(#","path":"#, to: &line)
        Self.appendQuoted(shown, to: &line)
        Self.append(#","route":"#, to: &line)
        Self.appendQuoted(route.unicodeScalars, to: &line)
        Self.append(#","status":"#, to: &line)
        Self.append(String(status), to: &line)
        if let cut {
            Self.append(#","stream":"#, to: &line)
            Self.appendQuoted(cut.reason.unicodeScalars, to: &line)
        }
        line.append(UInt8(ascii: "}"))
        return String(decoding: line, as: UTF8.self)
    }

    private static func append(_ text: String, to line: inout [UInt8]) {
        line.append(contentsOf: text.utf8)
    }

    /// Appends `scalars` as a JSON string (see ``quoted(_:)``).
    private static func appendQuoted(_ scalars: some Sequence<Unicode.Scalar>, to line: inout [UInt8]) {
        line.append(UInt8(ascii: "\""))
        for scalar in scalars {
            switch scalar {
            case "\"": append("\\\"", to: &line)
            case "\\": append("\\\\", to: &line)
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                append("\\u" + String(String(scalar.value + 0x10000, radix: 16).dropFirst()), to: &line)
            default: line.append(contentsOf: UTF8.encode(scalar)!)
            }
        }
        line.append(UInt8(ascii: "\""))
    }

    /// `text` as a JSON string: quotation mark, backslash and control characters escaped, the rest as it is.
    static func quoted(_ text: String) -> String {
        var line: [UInt8] = []
        appendQuoted(text.unicodeScalars, to: &line)
        return String(decoding: line, as: UTF8.self)
    }
}
