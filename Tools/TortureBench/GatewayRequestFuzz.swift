import BenchSupport

/// Generates requests for `hardtack gateway` as a browser, a script or an attacker sends them: API calls on
/// the route with the session's cookie and `X-CSRF: 1` (and fields the gateway must drop: the browser's own
/// `Authorization`, hop-by-hop fields, a field `Connection` names), calls without the cookie, with a tampered
/// one or without `X-CSRF`, the gateway's own endpoints, and any of them mutated byte by byte. Every request
/// carries `X-Fuzz-Index`, so that what reached the upstream can be matched to what was sent.
enum GatewayRequestFuzz {
    /// What a request must come to.
    enum Expectation: Equatable {
        /// Forwarded once and answered 200 by the upstream: an intact call with the session.
        case forwarded
        /// Forwarded once, the upstream answering ``HostileAnswer`` `kind`: the gateway's answer well formed, with
        /// none of the fields it must drop, and never a 500.
        case hostile(Int)
        /// Answered 401 or 403, and nothing reaches the upstream: an intact call without the session or `X-CSRF`.
        case refused
        /// Anything but a crash, a hang, a 500 or a head sent upstream that the checks refuse.
        case any
    }

    /// Request `index`, how many pieces to send it in, and what it must come to. `cookie` is the session's
    /// `name=value`; `host` is the `Host` the browser sends.
    static func generate(
        _ random: inout SeededGenerator, index: Int, cookie: String, host: String
    ) -> (
        request: [UInt8], chunks: Int, expectation: Expectation
    ) {
        let method = random.pick(["GET", "GET", "GET", "POST", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])
        var expectation = Expectation.forwarded
        // With what a browser leaves unescaped in a path (`|`, `^`, `{`, `}`) or a query (those, `"`, `<`, `>`,
        // `` ` ``), which the gateway escapes for the upstream.
        var target = "/api/" + random.pick(["items", "items/\(index)", "me", "a/b/c", "search", "a|b", "x{1}^2"])
        if random.chance(0.4) {
            target += "?n=\(index)&q=" + random.pick(["x", "%20y", "a%2Fb", "", "1&1=2", #"{"a":[1,2]}"#, "a|b^`<c>`"])
        }
        var fields: [(String, String)] = [("Host", host), ("X-Fuzz-Index", mark(index))]
        var sessionCookie = cookie
        var csrf: String? = "1"
        switch Int.random(in: 0..<10, using: &random) {
        case 0:
            expectation = .refused
            sessionCookie = ""
        case 1:
            expectation = .refused
            sessionCookie = tampered(cookie, &random)
        case 2:
            expectation = .refused
            csrf = random.pick([nil, "0", "", "true"])
        case 3:
            // The gateway's own endpoints, and paths that must never reach the upstream.
            expectation = .any
            target = random.pick([
                "/bff/user", "/bff/logout?sid=not-the-sid", "/bff/login?returnUrl=//evil.example/",
                "/bff/callback?state=forged&code=forged", "/bff/backchannel", "/healthz", "/metrics",
                "/api/../bff/user",
                "/api/%2e%2e/secret", "/api/a/..%2f..%2fsecret", "/api/..;/secret", "/api/..#x", "/api/a/..#/../x",
                "/apix", "/", "/nowhere",
            ])
        default: break
        }
        if !sessionCookie.isEmpty {
            let others = random.chance(0.3) ? "theme=dark; " : ""
            fields.append(("Cookie", others + sessionCookie + (random.chance(0.2) ? "; lang=en" : "")))
        }
        if let csrf { fields.append(("X-CSRF", csrf)) }
        if expectation == .forwarded && random.chance(0.3) {
            let kind = Int.random(in: 0..<HostileAnswer.kinds, using: &random)
            // With `Connection: close`, not a half-close: a streamed answer to a client that half-closed is not
            // written (libmicrohttpd closes such a connection as it resumes; docs/gateway.md).
            fields += [("X-Fuzz-Answer", "\(kind)"), ("Connection", "close")]
            expectation = .hostile(kind)
        }
        // Fields the gateway must drop or may pass, in any number.
        for _ in 0..<Int.random(in: 0...4, using: &random) {
            switch Int.random(in: 0..<12, using: &random) {
            case 0: fields.append(("Authorization", "Bearer evil-\(index)"))
            case 1: fields.append(("Proxy-Authorization", "Basic ZXZpbDpldmls"))
            case 2: fields += [("Connection", "X-Hop"), ("X-Hop", "evil-\(index)")]
            case 3: fields.append(("Keep-Alive", "timeout=5"))
            case 4: fields.append(("TE", "trailers"))
            case 5: fields.append(("Upgrade", "websocket"))
            case 6: fields.append(("Accept", random.pick(["application/json", "*/*", "text/html;q=0.9, */*;q=0.1"])))
            case 7: fields.append(("Origin", random.pick(["https://evil.example", "http://" + host])))
            case 8: fields.append(("X-Request-Id", random.hex(16)))
            case 9: fields.append(("Cookie", "second=1"))
            case 10: fields.append(("Proxy-Connection", "keep-alive"))
            default: fields.append(("User-Agent", "hardtack-fuzz/1 (\(random.hex(6)))"))
            }
        }
        var body: [UInt8] = []
        var chunked = false
        if ["POST", "PUT", "PATCH"].contains(method) || random.chance(0.05) {
            body =
                random.chance(0.5)
                ? Array(#"{"n":\#(index)}"#.utf8) : random.bytes(Int.random(in: 0...6000, using: &random))
            chunked = random.chance(0.3)
            fields.append(("Content-Type", "application/json"))
            fields.append(chunked ? ("Transfer-Encoding", "chunked") : ("Content-Length", "\(body.count)"))
        }
        if method == "HEAD" && !body.isEmpty && expectation != .refused { expectation = .any }
        random.shuffleTail(&fields, from: 2)
        var request = Array("\(method) \(target) HTTP/1.1\r\n".utf8)
        for (name, value) in fields { request += Array("\(name): \(value)\r\n".utf8) }
        request += [13, 10]
        request += chunked ? chunkedBody(body, &random) : body
        if random.chance(0.3) {
            request = Mutations.mutate(request, &random, maximum: 4)
            expectation = .any
        }
        let chunks = random.chance(0.1) ? Int.random(in: 2...8, using: &random) : 1
        return (request, chunks, expectation)
    }

    /// Request `index`'s `X-Fuzz-Index`: the index and a check of it, so that a mutation of one request's mark
    /// cannot pass for another's.
    static func mark(_ index: Int) -> String {
        "\(index)-"
            + String(UInt32(truncatingIfNeeded: ((UInt64(index) &+ 1) &* 0x9E37_79B9_7F4A_7C15) >> 32), radix: 16)
    }

    /// The index an `X-Fuzz-Index` value marks, when its check holds.
    static func index(marked value: String) -> Int? {
        guard let dash = value.firstIndex(of: "-"), let index = Int(value[..<dash]), index >= 0, mark(index) == value
        else { return nil }
        return index
    }

    /// Whether `request` is one whole request and nothing after it: a head, and the body its one
    /// `Content-Length` or its chunked coding frames, whole. The server answers such a request at once; one
    /// cut short, or followed by the start of another, it waits for until the head deadline or the idle
    /// timeout, or until a second or two after the client closes its side.
    static func isWhole(_ request: [UInt8]) -> Bool {
        // libmicrohttpd ends a line at a LF, a CR before it or not: the head ends at the first empty line.
        var lineStart = 0
        var headEnd: (head: Int, body: Int)?
        for index in request.indices where request[index] == 10 {
            let line = request[lineStart..<index]
            if line.isEmpty || line.elementsEqual([13]) {
                headEnd = (lineStart, index + 1)
                break
            }
            lineStart = index + 1
        }
        guard let (end, bodyStart) = headEnd else { return false }
        // Split at CRLF and at a LF alone, either being one newline character here.
        let head = String(decoding: request[..<end], as: UTF8.self).lowercased().split(whereSeparator: \.isNewline)
        let body = Array(request[bodyStart...])
        let lengths = head.filter { $0.hasPrefix("content-length:") }
        let codings = head.filter { $0.hasPrefix("transfer-encoding:") }
        if lengths.count + codings.count > 1 { return true }  // refused at once
        if let coding = codings.first {
            return !coding.contains("chunked") || chunkedLength(body) == body.count
        }
        guard let length = lengths.first else { return body.isEmpty }
        // libmicrohttpd skips the blanks around a value; digits only, or it refuses the head at once.
        let value = length.dropFirst("content-length:".count).trimmingPrefix { $0 == " " || $0 == "\t" }
        let digits = value.prefix { $0 != " " && $0 != "\t" }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), let count = Int(digits)
        else { return true }
        return body.count == count
    }

    /// How many bytes of `body` a whole chunked body takes (its last chunk and blank line included), or `nil`.
    private static func chunkedLength(_ body: [UInt8]) -> Int? {
        var offset = 0
        while true {
            guard let lineEnd = firstIndex(of: [13, 10], in: Array(body[offset...])),
                let size = Int(String(decoding: body[offset..<(offset + lineEnd)], as: UTF8.self), radix: 16), size >= 0
            else { return nil }
            offset += lineEnd + 2
            if size == 0 {
                return body.count >= offset + 2 && body[offset] == 13 && body[offset + 1] == 10 ? offset + 2 : nil
            }
            guard body.count >= offset + size + 2, body[offset + size] == 13, body[offset + size + 1] == 10 else {
                return nil
            }
            offset += size + 2
        }
    }

    /// `cookie` (`name=value`) with one character of its value changed.
    private static func tampered(_ cookie: String, _ random: inout SeededGenerator) -> String {
        var bytes = Array(cookie.utf8)
        guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")), equals + 1 < bytes.count else {
            return cookie + "x"
        }
        // Not the last character, whose low bits base64 may not use: changed there, a value can decode the same.
        guard equals + 2 < bytes.count else { return cookie + "x" }
        let position = Int.random(in: (equals + 1)..<(bytes.count - 1), using: &random)
        bytes[position] = bytes[position] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `body` in chunks of random sizes, with the last chunk and no trailers.
    private static func chunkedBody(_ body: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
        var out: [UInt8] = []
        var offset = 0
        while offset < body.count {
            let size = min(body.count - offset, Int.random(in: 1...2048, using: &random))
            out += Array((String(size, radix: 16) + "\r\n").utf8) + body[offset..<(offset + size)] + [13, 10]
            offset += size
        }
        return out + Array("0\r\n\r\n".utf8)
    }
}

extension SeededGenerator {
    /// Shuffles `fields` from `start` on, leaving the ones before it in place.
    fileprivate mutating func shuffleTail(_ fields: inout [(String, String)], from start: Int) {
        guard fields.count > start + 1 else { return }
        for index in stride(from: fields.count - 1, to: start, by: -1) {
            let other = Int.random(in: start...index, using: &self)
            fields.swapAt(index, other)
        }
    }
}
