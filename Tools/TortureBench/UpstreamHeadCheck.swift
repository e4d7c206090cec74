import Foundation

/// What the gateway must never send upstream, checked on each head the recording upstream kept: a head
/// framed two ways or not as HTTP/1.1 writes it, a line ended by a bare CR or LF, a field whose name is not a
/// token or whose value holds a control character, the browser's cookies, credentials, `X-CSRF` or hop-by-hop
/// fields, any `Authorization` but the one bearer, another `Host`, or a target outside the route's upstream path.
enum UpstreamHeadCheck {
    /// How a head frames its body (RFC 9112 §6).
    enum Framing {
        case none
        case length(Int)
        case chunked
        case invalid(String)
    }

    /// Fields the gateway drops from every call: the browser's cookies, credentials and anti-forgery header,
    /// and the hop-by-hop fields. (A field `Connection` names is dropped too, but a mutation may have made it an
    /// ordinary field: the fuzz checks that on intact requests only.)
    static let dropped: Set<String> = [
        "cookie", "x-csrf", "proxy-authorization", "proxy-connection", "keep-alive", "te", "trailer", "upgrade",
        "connection",
    ]

    /// The head's request line and fields, or why it does not parse as HTTP/1.1 writes it.
    static func parse(_ head: [UInt8]) -> Result<(line: [Substring], fields: [(name: String, value: String)]), Fault> {
        guard head.count >= 4, head.suffix(4).elementsEqual([13, 10, 13, 10]) else {
            return .failure(Fault("a head that does not end with a blank line"))
        }
        let text = String(decoding: head.dropLast(4), as: UTF8.self)
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        if lines.contains(where: { $0.contains("\r") || $0.contains("\n") }) {
            return .failure(Fault("a line ended by a bare CR or LF"))
        }
        let requestLine = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, requestLine[2] == "HTTP/1.1", isToken(requestLine[0]) else {
            return .failure(Fault("a request line that is not METHOD SP TARGET SP HTTP/1.1"))
        }
        var fields: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), isToken(line[..<colon]) else {
                return .failure(Fault("a field whose name is not a token"))
            }
            let value = line[line.index(after: colon)...].trimmingPrefix { $0 == " " || $0 == "\t" }
            if value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                return .failure(Fault("a field value with a control character"))
            }
            fields.append((line[..<colon].lowercased(), String(value)))
        }
        return .success((requestLine, fields))
    }

    /// Why a head is wrong.
    struct Fault: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// How `head` frames its body; `.invalid` when it frames it two ways or in a way this reader does not take.
    static func framing(of head: [UInt8]) -> Framing {
        guard case .success(let parsed) = parse(head) else { return .invalid("a head that does not parse") }
        let lengths = parsed.fields.filter { $0.name == "content-length" }
        let codings = parsed.fields.filter { $0.name == "transfer-encoding" }
        switch (lengths.count, codings.count) {
        case (0, 0): return .none
        case (1, 0):
            let text = lengths[0].value.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let count = Int(text) else {
                return .invalid("a Content-Length that is not a number")
            }
            return .length(count)
        case (0, 1):
            return codings[0].value.trimmingCharacters(in: .whitespaces).lowercased() == "chunked"
                ? .chunked : .invalid("a Transfer-Encoding other than chunked")
        default: return .invalid("a body framed more than one way")
        }
    }

    /// What is wrong with `head` as a call the gateway forwarded to `host` under `prefix`, and the bearer it
    /// carried.
    static func faults(in head: [UInt8], host: String, prefix: String) -> (faults: [String], bearer: String?) {
        let parsed: (line: [Substring], fields: [(name: String, value: String)])
        switch parse(head) {
        case .success(let result): parsed = result
        case .failure(let fault): return ([fault.reason], nil)
        }
        var faults: [String] = []
        let target = parsed.line[1]
        if !target.hasPrefix(prefix) { faults.append("a target outside \(prefix)") }
        if target.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) {
            faults.append("a target with a space or control")
        }
        if climbs(target) { faults.append("a target with a dot segment") }
        for field in parsed.fields where dropped.contains(field.name) { faults.append("the field \(field.name)") }
        let hosts = parsed.fields.filter { $0.name == "host" }
        if hosts.count != 1 || hosts[0].value != host { faults.append("a Host other than \(host)") }
        let authorizations = parsed.fields.filter { $0.name == "authorization" }
        var bearer: String?
        if authorizations.count == 1, authorizations[0].value.hasPrefix("Bearer "), authorizations[0].value.count > 7 {
            bearer = String(authorizations[0].value.dropFirst(7))
        } else {
            faults.append("\(authorizations.count) Authorization fields, or one that is not a bearer")
        }
        return (faults, bearer)
    }

    /// The value of the first field `name` (lowercase) of `head`, when the head parses.
    static func field(_ name: String, in head: [UInt8]) -> String? {
        fields(name, in: head).first
    }

    /// The values of every field `name` (lowercase) of `head`, in order, when the head parses.
    static func fields(_ name: String, in head: [UInt8]) -> [String] {
        guard case .success(let parsed) = parse(head) else { return [] }
        return parsed.fields.filter { $0.name == name }.map(\.value)
    }

    /// The `X-Fuzz-Index` the fuzz gave the request, when it arrived intact.
    static func fuzzIndex(of head: [UInt8]) -> Int? {
        field("x-fuzz-index", in: head).flatMap { GatewayRequestFuzz.index(marked: $0) }
    }

    /// Whether a segment of `target`'s path is `.` or `..` once percent-decoded (before any `;`).
    private static func climbs(_ target: Substring) -> Bool {
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return path.split(separator: "/").contains { segment in
            let name = (segment.removingPercentEncoding ?? String(segment)).split(separator: ";").first ?? ""
            return name == "." || name == ".."
        }
    }

    /// Whether `text` is an HTTP token (RFC 9110 §5.6.2).
    private static func isToken(_ text: Substring) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
    }
}
