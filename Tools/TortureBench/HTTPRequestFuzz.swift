import BenchSupport

/// Generates HTTP/1.1 requests for `hardtack serve`: the contracts' real requests, mutated byte by byte
/// or structurally (lengths, codings, versions, huge heads, pipelining), and plain junk.
enum HTTPRequestFuzz {
    /// A request, how many pieces to send it in, whether to half-close after it, and whether it is one of the
    /// contracts' real requests unchanged (which must be answered).
    static func generate(
        _ random: inout SeededGenerator
    ) -> (
        request: [UInt8], chunks: Int, finish: Bool, pristine: Bool
    ) {
        var request = Array(template(&random).utf8)
        let shape = Int.random(in: 0..<20, using: &random)
        switch shape {
        case 0, 1: break
        case 2...9: request = Mutations.mutate(request, &random, maximum: 6)
        case 10:
            let value = random.pick([
                "-1", "0", "99999999999", "1e3", " 10", "10 ", "0x10", "", "18446744073709551616", "5,5", "+5",
            ])
            request = Array(replaceHeader(String(decoding: request, as: UTF8.self), "Content-Length", value).utf8)
        case 11:
            request = Array(
                insertHeader(
                    String(decoding: request, as: UTF8.self),
                    random.pick([
                        "Transfer-Encoding: chunked", "Content-Length: 3", "Expect: 100-continue", "Host: second",
                        "X-Big: " + String(repeating: "b", count: Int.random(in: 1000...20000, using: &random)),
                        String(repeating: "X-Many: 1\r\n", count: Int.random(in: 10...2000, using: &random))
                            + "X-Last: 1",
                        "Bad Header: x", ": empty", "X-Folded: a\r\n b", "Transfer-Encoding: gzip",
                        "Transfer-Encoding: chunked ", "Content-Length: 0", "Transfer-Encoding: gzip, chunked",
                    ])
                ).utf8)
        case 12:
            request = Array(
                ("GET /" + String(repeating: "a", count: Int.random(in: 1000...20000, using: &random))
                    + " HTTP/1.1\r\nHost: x\r\n\r\n").utf8)
        case 13:
            request = Array(
                random.pick([
                    "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "GET /api/me HTTP/1.0\r\n\r\n",
                    "GET /api/me HTTP/2.0\r\nHost: x\r\n\r\n",
                    "get /api/me HTTP/1.1\r\nHost: x\r\n\r\n", "GET http://x/api/me HTTP/1.1\r\nHost: x\r\n\r\n",
                    "GET /api/%00me HTTP/1.1\r\nHost: x\r\n\r\n", "GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
                    "GET /api/me\r\n\r\n", "GET /api/me HTTP/1.1\nHost: x\n\n", "\r\n\r\n", "", "GET",
                    " / HTTP/1.1\r\n\r\n",
                    "GET /debug/stats?x=1&x=2 HTTP/1.1\r\nHost: x\r\n\r\n",
                ]).utf8)
        case 14:
            // Two requests in one connection (pipelined: the server answers both, in order).
            request += Array(template(&random).utf8)
        case 15:
            request = random.bytes(Int.random(in: 0...4096, using: &random))
        case 16:
            // A head cut short, then the connection closed.
            request = Array(request.prefix(Int.random(in: 0...request.count, using: &random)))
        default:
            request = Mutations.mutate(request, &random, maximum: 2)
        }
        let chunks = random.chance(0.15) ? Int.random(in: 2...12, using: &random) : 1
        // Rarely, the connection stays open after the request: the server must answer or time out.
        let finish = !random.chance(0.01)
        return (request, chunks, finish, shape < 2)
    }

    private static func template(_ random: inout SeededGenerator) -> String {
        func post(_ path: String, _ type: String, _ body: String, extra: String = "") -> String {
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(type)\r\n\(extra)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        }
        let form = "application/x-www-form-urlencoded"
        let token = random.hex(Int.random(in: 1...64, using: &random))
        switch Int.random(in: 0..<9, using: &random) {
        case 0: return "GET /api/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n"
        case 1:
            return post(
                "/oauth/token", form, "grant_type=password&username=alice&password=wonderland&client_id=hardtack-cli")
        case 2:
            return post("/oauth/token", form, "grant_type=refresh_token&refresh_token=\(token)&client_id=hardtack-cli")
        case 3:
            return post("/oauth/revoke", form, "token=\(token)&token_type_hint=refresh_token&client_id=hardtack-cli")
        case 4: return post("/auth/signin", "application/json", #"{"username":"alice","password":"wonderland"}"#)
        case 5: return post("/auth/signin/apple", "application/json", #"{"identityToken":"\#(token)"}"#)
        case 6:
            return post("/auth/refresh", "application/json", "", extra: "Authorization-refresh: Bearer \(token)\r\n")
        case 7: return "GET /debug/stats HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        default: return "HEAD /api/me HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        }
    }

    private static func replaceHeader(_ request: String, _ name: String, _ value: String) -> String {
        var lines = request.components(separatedBy: "\r\n")
        for index in lines.indices where lines[index].lowercased().hasPrefix(name.lowercased() + ":") {
            lines[index] = "\(name): \(value)"
        }
        return lines.joined(separator: "\r\n")
    }

    private static func insertHeader(_ request: String, _ header: String) -> String {
        guard let end = request.range(of: "\r\n") else { return request }
        return request.replacingCharacters(in: end, with: "\r\n" + header + "\r\n")
    }
}
