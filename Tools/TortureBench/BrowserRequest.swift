import Foundation

/// One HTTP/1.1 request to a loopback server as a browser sends it through a load balancer (`Host`
/// the public origin's, `Connection: close`), and its answer's status, fields and body. A connection
/// refused (nothing listening) is told apart from one cut before a whole answer came (a killed server).
struct BrowserRequest {
    /// What came back.
    enum Outcome {
        /// A whole answer.
        case answered(Answer)
        /// Nothing listens on the port.
        case refused
        /// The connection closed, or the deadline passed, before an answer's head.
        case cut
    }

    /// An answer: status, header fields in order, body (as sent: not de-chunked).
    struct Answer {
        /// The status code.
        let status: Int
        /// The header fields, names as sent.
        let fields: [(name: String, value: String)]
        /// The bytes after the head.
        let body: [UInt8]

        /// The first field named `name` (case-insensitive).
        func field(_ name: String) -> String? {
            fields.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// Each `Set-Cookie`'s name and value.
        var cookies: [(name: String, value: String)] {
            fields.filter { $0.name.lowercased() == "set-cookie" }.compactMap { field in
                let pair = field.value.split(separator: ";", maxSplits: 1).first ?? ""
                guard let equals = pair.firstIndex(of: "=") else { return nil }
                return (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
            }
        }
    }

    /// `GET`, `POST`…
    var method = "GET"
    /// The path and query.
    var target: String
    /// The `Host` field.
    var host: String
    /// More fields.
    var fields: [(String, String)] = []
    /// A body (a form, for `POST`).
    var body: [UInt8] = []

    /// Sends it to 127.0.0.1:`port` and waits at most `timeout` seconds for the whole answer.
    func send(to port: UInt16, timeout: Double) -> Outcome {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
        for (name, value) in fields { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        let reply = LoopbackClient.exchange(port: port, Array((head + "\r\n").utf8) + body, finish: false, timeout: timeout)
        if reply.refused { return .refused }
        guard !reply.timedOut, let status = reply.status, let end = firstIndex(of: [13, 10, 13, 10], in: reply.bytes)
        else { return .cut }
        let lines = String(decoding: reply.bytes[..<end], as: UTF8.self).split(separator: "\r\n").dropFirst()
        let parsed = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return .answered(Answer(status: status, fields: parsed, body: Array(reply.bytes[(end + 4)...])))
    }

    /// `text` percent-encoded for a form or a query (everything but unreserved characters).
    static func formEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
