import Data

/// The request line and header fields of an HTTP/1.x request, parsed strictly (RFC 9112): anything
/// unusual is a 400 rather than a guess.
struct HTTPRequestHead: Sendable {
    /// The method token, such as `POST`.
    let method: String
    /// The origin-form target: the path and any query.
    let target: String
    /// `HTTP/1.1` or `HTTP/1.0`.
    let version: String
    /// The header fields in order.
    let headers: HTTPHeaders

    /// Parses the head (without the final empty line), or returns the status to refuse it with.
    static func parse(_ bytes: ArraySlice<UInt8>) -> Result<HTTPRequestHead, HTTPWireRejection> {
        let lines = split(bytes)
        guard let requestLine = lines.first else { return .failure(HTTPWireRejection(status: 400)) }
        let method: String
        let target: String
        let version: String
        switch parseRequestLine(requestLine) {
        case .success(let parts): (method, target, version) = parts
        case .failure(let rejection): return .failure(rejection)
        }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let (name, value) = parseField(line) else { return .failure(HTTPWireRejection(status: 400)) }
            headers.add(name, value)
        }
        // RFC 9112 §3.2: an HTTP/1.1 request without exactly one Host is a 400.
        let hosts = headers.filter { $0.name.lowercased() == "host" }.count
        if (version == "HTTP/1.1" && hosts != 1) || hosts > 1 { return .failure(HTTPWireRejection(status: 400)) }
        return .success(HTTPRequestHead(method: method, target: target, version: version, headers: headers))
    }

    /// The CRLF-separated lines; a bare CR or LF makes the whole head invalid (an empty result).
    private static func split(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == 13 {
                guard index + 1 < bytes.endIndex, bytes[index + 1] == 10 else { return [] }
                lines.append(bytes[start..<index])
                index += 2
                start = index
                continue
            }
            if byte == 10 { return [] }
            index += 1
        }
        lines.append(bytes[start..<bytes.endIndex])
        return lines
    }

    /// Parses `method SP origin-form SP HTTP/1.x` (single spaces, no CRLF): 400 when malformed, 505
    /// for another HTTP version. The reader calls it as soon as the first line arrives.
    static func parseRequestLine(_ line: ArraySlice<UInt8>) -> Result<(String, String, String), HTTPWireRejection> {
        let malformed = HTTPWireRejection(status: 400)
        let parts = line.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte) else { return .failure(malformed) }
        let target = parts[1]
        guard target.first == UInt8(ascii: "/"), target.allSatisfy({ $0 > 32 && $0 < 127 }) else {
            return .failure(malformed)
        }
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version.utf8.count == 8, version.hasPrefix("HTTP/"), version.utf8.allSatisfy({ $0 > 32 && $0 < 127 })
        else { return .failure(malformed) }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { return .failure(HTTPWireRejection(status: 505)) }
        return .success((String(decoding: parts[0], as: UTF8.self), String(decoding: target, as: UTF8.self), version))
    }

    /// `name ":" OWS value OWS`; no space before the colon, no obsolete line folding, no control bytes.
    private static func parseField(_ line: ArraySlice<UInt8>) -> (String, String)? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else { return nil }
        var value = line[(colon + 1)...]
        while let first = value.first, first == 32 || first == 9 { value = value.dropFirst() }
        while let last = value.last, last == 32 || last == 9 { value = value.dropLast() }
        guard value.allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }),
            let text = String(validating: value, as: UTF8.self)
        else { return nil }
        return (String(decoding: name, as: UTF8.self), text)
    }

    /// A `tchar` of RFC 9110 §5.6.2.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
