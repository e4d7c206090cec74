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

    /// The line: one JSON object.
    var json: String {
        let path = request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let shown = String(path.prefix(256)).unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : String($0) }.joined()
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        var fields: [String: Any] = [
            "method": String(request.method.prefix(16)), "path": shown, "route": route, "status": status,
            "ms": (milliseconds * 1000).rounded() / 1000,
        ]
        if let cut {
            fields["stream"] = cut.reason
            fields["bytes"] = cut.bytes
        }
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
