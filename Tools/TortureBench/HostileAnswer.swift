/// The answers an upstream gone wrong gives, for the gateway fuzz: fields the gateway must not pass back (its
/// cookies, hop-by-hop ones, a field `Connection` names), heads it must refuse (too large, framed two ways, a bare
/// CR, no end), bodies cut short or malformed, trailers, an interim answer before the final one, and junk. The
/// ``RecordingUpstream`` gives answer `kind` to a request that asks for it with `X-Fuzz-Answer`, then closes
/// the connection, since some of them leave it where no reader could go on. Never a 401, which the gateway
/// answers with a refresh and a retry (tested on their own).
enum HostileAnswer {
    /// How many kinds there are.
    static let kinds = 17

    /// The statuses the gateway may answer kind `kind` with: the upstream's, when its answer can be read and
    /// passed on (cut short after its head, or without the fields it must drop), else 502.
    static func allowed(_ kind: Int) -> Set<Int> {
        switch kind % kinds {
        case 0, 1, 10, 15, 16: [200]
        case 2, 7, 12, 13: [502]
        case 11: [204, 502]
        default: [200, 502]
        }
    }

    /// Answer `kind` (taken modulo ``kinds``), with no body when `isHead`.
    static func bytes(_ kind: Int, isHead: Bool) -> [UInt8] {
        let ok = #"{"ok":true}"#
        // `Connection: close` on what curl reads as whole: the connection ends after it, which a connection
        // kept for the next call would not see in time.
        func answer(_ head: String, _ body: String = ok) -> [UInt8] {
            Array((head + "\r\nConnection: close\r\n\r\n" + (isHead ? "" : body)).utf8)
        }
        let plain = "HTTP/1.1 200 OK\r\nX-Upstream: 1\r\nContent-Type: application/json"
        switch kind % kinds {
        case 0:
            return answer(
                plain + "\r\nSet-Cookie: __Host-hardtack=planted; Path=/; Secure\r\nSet-Cookie: other=1\r\n"
                    + "Content-Length: 11")
        case 1:
            return answer(
                plain + "\r\nConnection: X-Up-Hop, close\r\nX-Up-Hop: 1\r\nKeep-Alive: timeout=5\r\nProxy-Connection: x"
                    + "\r\nTE: trailers\r\nUpgrade: h2c\r\nContent-Length: 11")
        case 2: return answer(plain + "\r\nX-Big: " + String(repeating: "b", count: 6000) + "\r\nContent-Length: 11")
        case 3: return answer(plain + "\r\nContent-Length: 11\r\nContent-Length: 12")
        case 4:
            return answer(
                plain + "\r\nContent-Length: 11\r\nTransfer-Encoding: chunked", "b\r\n" + ok + "\r\n0\r\n\r\n")
        case 5: return answer(plain + "\r\nX-Split: a\rSet-Cookie: injected=1\r\nContent-Length: 11")
        case 6: return answer(plain + "\r\nX Bad Name: 1\r\nContent-Length: 11")
        case 7: return Array((plain + "\r\nContent-Length: 11\r\nX-Cut: ").utf8)
        case 8: return answer(plain + "\r\nContent-Length: 500", ok)
        case 9: return answer(plain + "\r\nTransfer-Encoding: chunked", "zz\r\n" + ok + "\r\n0\r\n\r\n")
        case 10: return Array("HTTP/1.1 100 Continue\r\n\r\n".utf8) + answer(plain + "\r\nContent-Length: 11")
        case 11: return answer("HTTP/1.1 204 No Content\r\nX-Upstream: 1\r\nContent-Length: 11")
        case 12: return answer("HTTP/1.1 999 Strange\r\nX-Upstream: 1\r\nContent-Length: 11")
        case 13: return Array("this is not HTTP at all\r\n\r\n".utf8)
        case 14:
            return answer(
                plain + "\r\nDate: Thu, 01 Jan 1970 00:00:00 GMT\r\nDate: Fri, 02 Jan 1970 00:00:00 GMT\r\nX-Empty:"
                    + "\r\nX-Folded: a\r\n b\r\nContent-Length: 11")
        case 15:
            return answer(plain + "\r\nContent-Length: \(200_000)", String(repeating: "x", count: 200_000))
        default:
            // Trailers the gateway must not pass on, a cookie among them.
            return answer(
                plain + "\r\nTransfer-Encoding: chunked\r\nTrailer: Set-Cookie, X-Up-Hop",
                "b\r\n" + ok + "\r\n0\r\nSet-Cookie: trailer=planted\r\nX-Up-Hop: 1\r\n")
        }
    }
}
