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

    /// The server's answer to `HEAD`, with the length its handler declared and nothing after the head.
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

    /// An upstream that sends a body after all, late, to a `HEAD`: the connection it came on is not used again,
    /// so the next call's answer is its own, not those stray bytes read as its head.
    @Test func aBodySentLateToAHEADIsNotTakenForTheNextAnswer() async throws {
        let (listener, port) = RawSocket.silentListener()
        defer { close(listener) }
        Thread { LateBodyUpstream.serve(listener) }.start()
        let client = CurlHTTPClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, timeout: 5)
        let head = try await client.send(HTTPRequest(method: "HEAD", path: "/"))
        #expect(head.status == 200 && head.body.isEmpty && head.headers["Content-Length"] == "5")
        let get = try await client.send(HTTPRequest(method: "GET", path: "/"))
        #expect(
            get.status == 200 && get.body == Data("ok".utf8),
            "\(get.status) \(String(decoding: get.body, as: UTF8.self))")
    }
}

/// An upstream that answers a `HEAD` with `Content-Length: 5`, then, 300 ms later, five bytes it must not send,
/// keeping the connection for the next request; and any other request with `ok`. A connection at a time, each
/// on the accepting thread, until the listener is closed.
enum LateBodyUpstream {
    static func serve(_ listener: Int32) {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            var buffered: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                while !buffered.ends(with: Array("\r\n\r\n".utf8)) {
                    let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                    guard count > 0 else { break }
                    buffered += chunk[0..<count]
                }
                guard buffered.ends(with: Array("\r\n\r\n".utf8)) else { break }
                let isHead = buffered.starts(with: Array("HEAD ".utf8))
                buffered = []
                if isHead {
                    RawSocket.send(connection, Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n".utf8))
                    Thread.sleep(forTimeInterval: 0.3)
                    RawSocket.send(connection, Array("stray".utf8))
                } else {
                    RawSocket.send(connection, Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8))
                }
            }
            close(connection)
        }
    }
}
