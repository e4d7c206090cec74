import CurlHTTP
import Data
import Foundation
import MicroHTTPD
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The answer to `HEAD` has the fields the answer to `GET` would have (RFC 9110 §9.3.2), its length too: a
/// handler that passes on another server's answer to a `HEAD` (no body, that server's `Content-Length`) has
/// that length sent, with no body; and the HTTP client reads such an answer at once, not waiting for a body.
@Suite struct MicroHTTPHeadRequestTests {
    /// A server answering `HEAD` as a proxy does (no body, the length it was told) and `GET` with 5,000 bytes.
    static func server() throws -> MicroHTTPServer {
        try MicroHTTPServer(port: 0) { request in
            var headers = HTTPHeaders([("Content-Type", "text/plain")])
            if request.method == "HEAD" {
                headers.add("Content-Length", "5000")
                return HTTPResponse(status: 200, headers: headers)
            }
            headers.add("Content-Length", "17")  // not the body's: the server writes the body's own
            return HTTPResponse(status: 200, headers: headers, body: Data(repeating: UInt8(ascii: "g"), count: 5000))
        }
    }

    @Test func aHEADsDeclaredLengthIsSentWithNoBody() async throws {
        let server = try Self.server()
        let head = await RawSocket.exchange(
            port: server.port, sending: Array("HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n") && head.hasSuffix("\r\n\r\n"), "\(head)")
        #expect(
            head.components(separatedBy: "Content-Length").count == 2 && head.contains("\r\nContent-Length: 5000\r\n"))
        let get = await RawSocket.exchange(
            port: server.port, sending: Array("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect(
            get.contains("\r\nContent-Length: 5000\r\n") && !get.contains("Content-Length: 17"), "\(get.prefix(200))")
        #expect(get.hasSuffix(String(repeating: "g", count: 5000)))
        await server.stop(grace: .seconds(1))
    }

    /// A client that half-closes after its `HEAD` gets the answer the server writes itself: the same length.
    @Test func aHalfClosedClientsHEADHasTheDeclaredLengthToo() async throws {
        let server = try Self.server()
        let replies = await MicroHTTPHalfCloseTests.halfClosing(16, port: server.port) { _ in
            "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n"
        }
        #expect(
            replies.allSatisfy { $0.contains("\r\nContent-Length: 5000\r\n") && $0.hasSuffix("\r\n\r\n") },
            "\(replies.prefix(2))")
        await server.stop(grace: .seconds(1))
    }

    /// The client's `HEAD` returns at once with the length, streamed or not, and keeps its connection working.
    @Test func theClientReadsAHEADsAnswerWithoutWaitingForABody() async throws {
        let server = try Self.server()
        let client = CurlHTTPClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, timeout: 5)
        let started = ContinuousClock.now
        let sent = try await client.send(HTTPRequest(method: "HEAD", path: "/"))
        #expect(ContinuousClock.now - started < .seconds(4), "waited for a body")
        #expect(sent.status == 200 && sent.body.isEmpty && sent.headers["Content-Length"] == "5000")
        let streamed = try await client.stream(HTTPRequest(method: "HEAD", path: "/"))
        #expect(streamed.status == 200 && streamed.headers["Content-Length"] == "5000")
        #expect(streamed.body.takeWhole() == Data(), "a HEAD's answer arrives whole")
        let get = try await client.send(HTTPRequest(method: "GET", path: "/"))
        #expect(get.body.count == 5000)
        await server.stop(grace: .seconds(1))
    }
}
