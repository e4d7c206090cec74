import Data
import Foundation
import MicroHTTPD
import TestSupport
import Testing

/// libmicrohttpd writes an answer's head into the connection memory that still holds its request's head, the
/// copy of its `Cookie` field and a record for each field and cookie, and closes a connection whose answer
/// head does not fit there without sending anything: the server keeps room for one.
@Suite struct MicroHTTPConnectionMemoryTests {
    /// A head of `cookies` cookies, 8,000 bytes in all.
    static func head(cookies: Int) -> String {
        let start = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nCookie: "
        var values = (0..<cookies).map { "c\($0)=v" }
        let used = start.utf8.count + values.joined(separator: "; ").utf8.count + 4
        let each = (8_000 - used) / cookies
        values = values.map { $0 + String(repeating: "v", count: each) }
        values[0] += String(repeating: "v", count: 8_000 - used - each * cookies)
        return start + values.joined(separator: "; ") + "\r\n\r\n"
    }

    /// However a head within the limit is made up, its answer is sent: the handler's when the memory it holds
    /// leaves room for an answer head of ``MicroHTTPServerLimits/answerHeadBytes`` (always with up to 64 fields
    /// and cookies), else a 431. Before the room was kept, most of these got nothing at all.
    @Test func aHeadNearTheLimitIsAnsweredHoweverManyCookiesItHolds() async throws {
        let padding = String(repeating: "p", count: 3_900)
        let server = try MicroHTTPServer(port: 0) { _ in
            HTTPResponse(status: 200, headers: HTTPHeaders([("X-Padding", padding)]), body: Data("ok".utf8))
        }
        var refusals = 0
        for cookies in [1, 20, 40, 61, 62, 64, 70, 80, 100, 115, 130, 132, 134, 135, 136, 138, 160, 200, 300] {
            let head = Self.head(cookies: cookies)
            #expect(head.utf8.count == 8_000)
            let reply = await RawSocket.exchange(port: server.port, sending: Array(head.utf8))
            if reply.hasPrefix("HTTP/1.1 200") {
                #expect(reply.contains(padding) && reply.hasSuffix("ok"), "\(cookies) cookies: cut short")
                continue
            }
            #expect(reply.hasPrefix("HTTP/1.1 431"), "\(cookies) cookies: \(reply.prefix(60))")
            // 67 cookies and three fields leave 4,416 bytes, 68 leave 4,352: less than the room and its slack.
            #expect(cookies > 67, "\(cookies) cookies and three fields were refused")
            guard reply.contains("request_head_too_large") else { continue }
            // The server's own, whether libmicrohttpd wrote it or, with too little room left, the server did.
            refusals += 1
            #expect(reply.contains("\r\nDate: ") && reply.hasSuffix("}"), "\(cookies) cookies: \(reply)")
        }
        #expect(refusals >= 3, "the server's own 431 answered the crowded heads")
        await server.stop(grace: .seconds(1))
    }

    /// Each refusal the server gives before the handler is answered, however little room its request left:
    /// an invalid method beside 135 cookies, a folded field (whose copy libmicrohttpd keeps where nothing can be
    /// counted on), a chunked body ending in trailer fields (read after the head was counted).
    @Test func refusalsAreAnsweredHoweverLittleRoomTheRequestLeft() async throws {
        let (server, handled) = try MicroHTTPServerTests.countingServer()
        let crowded = Self.head(cookies: 135)
        let shapes: [(String, String, String)] = [
            ("G@T" + crowded.dropFirst(3), "400", "invalid_method"),
            (
                "GET / HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n b\r\nConnection: close\r\n\r\n", "400",
                "folded_header_field"
            ),
            (
                "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                    + "5\r\nhello\r\n0\r\nX-Trailer: 1\r\n\r\n", "400", "request_trailers_refused"
            ),
        ]
        for (head, status, error) in shapes {
            let reply = await RawSocket.exchange(port: server.port, sending: Array(head.utf8))
            #expect(reply.hasPrefix("HTTP/1.1 \(status)") && reply.contains(error), "\(error): \(reply.prefix(80))")
        }
        #expect(handled.withLock { $0 } == 0)
        await server.stop(grace: .seconds(1))
    }

    /// An answer whose head would not fit beside its request's is answered 500 in its place, never closed
    /// without a word; beside a small request the same head is sent whole.
    @Test func anAnswerHeadTooLargeForItsRequestIs500() async throws {
        let padding = String(repeating: "p", count: 10_000)
        let server = try MicroHTTPServer(port: 0) { _ in
            HTTPResponse(status: 200, headers: HTTPHeaders([("X-Padding", padding)]), body: Data("ok".utf8))
        }
        let small = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let whole = await RawSocket.exchange(port: server.port, sending: Array(small.utf8))
        #expect(whole.hasPrefix("HTTP/1.1 200") && whole.contains(padding), "\(whole.prefix(80))")
        let besideCookies = await RawSocket.exchange(port: server.port, sending: Array(Self.head(cookies: 67).utf8))
        #expect(
            besideCookies.hasPrefix("HTTP/1.1 500") && besideCookies.contains("answer_head_too_large"),
            "\(besideCookies.prefix(80))")
        await server.stop(grace: .seconds(1))
    }
}
