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

    /// The line: one JSON object, its keys sorted. Written by hand, byte by byte, into one buffer (every
    /// call logs one: `JSONSerialization` cost the gateway an eighth of its time per call). The path shows
    /// its first 256 characters (Unicode scalars), a control character in it as `?`.
    var json: String {
        // Never negative (a clock's differences are not): shown as 0 if it ever were.
        let microseconds = max(
            0, duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000)
        var line: [UInt8] = []
        line.reserveCapacity(128 + min(request.path.utf8.count, 1024))
        line.append(UInt8(ascii: "{"))
        if let cut {
            Self.append(#""bytes":"#, to: &line)
            Self.appendDecimal(Int64(cut.bytes), to: &line)
            line.append(UInt8(ascii: ","))
        }
        Self.append(#""method":"#, to: &line)
        Self.appendQuoted(request.method.utf8, scalars: 16, to: &line)
        Self.append(#","ms":"#, to: &line)
        Self.appendDecimal(microseconds / 1000, to: &line)
        line.append(UInt8(ascii: "."))
        let fraction = microseconds % 1000
        line.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        line.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        line.append(UInt8(ascii: "0") + UInt8(fraction % 10))
        Self.append(#","path":"#, to: &line)
        let path = request.path.utf8
        Self.appendQuoted(path[..<(path.firstIndex(of: UInt8(ascii: "?")) ?? path.endIndex)], scalars: 256, to: &line, controls: .replaced)
        Self.append(#","route":"#, to: &line)
        Self.appendQuoted(route.utf8, to: &line)
        Self.append(#","status":"#, to: &line)
        Self.appendDecimal(Int64(status), to: &line)
        if let cut {
            Self.append(#","stream":"#, to: &line)
            Self.appendQuoted(cut.reason.utf8, to: &line)
        }
        line.append(UInt8(ascii: "}"))
        return String(decoding: line, as: UTF8.self)
    }

    /// What a control character in a quoted text becomes.
    private enum Controls {
        /// `\u` and four hex digits, as JSON writes it.
        case escaped
        /// `?`, as the path shows one.
        case replaced
    }

    private static func append(_ text: StaticString, to line: inout [UInt8]) {
        line.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `value`'s decimal digits, a `-` first when it is negative (a small string: no allocation).
    private static func appendDecimal(_ value: Int64, to line: inout [UInt8]) {
        line.append(contentsOf: String(value).utf8)
    }

    /// Appends the UTF-8 text `bytes` as a JSON string: quotation mark and backslash escaped, a control
    /// character (below U+0020, and U+007F) escaped or replaced, the rest as it is; at most its first
    /// `scalars` Unicode scalars.
    private static func appendQuoted(
        _ bytes: some Collection<UInt8>, scalars: Int = .max, to line: inout [UInt8], controls: Controls = .escaped
    ) {
        line.append(UInt8(ascii: "\""))
        var shown = 0
        for byte in bytes {
            // A scalar starts at every byte but a continuation byte (10xxxxxx).
            if byte & 0xC0 != 0x80 {
                if shown == scalars { break }
                shown += 1
            }
            switch byte {
            case UInt8(ascii: "\""): append("\\\"", to: &line)
            case UInt8(ascii: "\\"): append("\\\\", to: &line)
            case 0..<0x20, 0x7F:
                switch controls {
                case .replaced: line.append(UInt8(ascii: "?"))
                case .escaped:
                    append("\\u00", to: &line)
                    line.append(hexDigits[Int(byte >> 4)])
                    line.append(hexDigits[Int(byte & 0x0F)])
                }
            default: line.append(byte)
            }
        }
        line.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `text` as a JSON string: quotation mark, backslash and control characters escaped, the rest as it is.
    static func quoted(_ text: String) -> String {
        var line: [UInt8] = []
        appendQuoted(text.utf8, to: &line)
        return String(decoding: line, as: UTF8.self)
    }
}
