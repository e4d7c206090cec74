import Data
import Foundation
import URLSessionHTTP
import DevelopmentServers
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Real HTTP on an ephemeral loopback port: the LoopbackHTTPServer's own promises, and what only
/// URLSessionHTTPClient has to prove (what every client adapter promises is in HTTPClientConformanceTests).
@Suite struct LoopbackHTTPTests {
    /// An auth server behind a loopback server, and a client pointed at it.
    func authOverHTTP(readTimeout: TimeInterval = 5) throws -> (
        EmbeddedAuthServer, LoopbackHTTPServer, URLSessionHTTPClient
    ) {
        let auth = EmbeddedAuthServer()
        let http = try LoopbackHTTPServer(readTimeout: readTimeout) { await auth.handle($0) }
        return (auth, http, URLSessionHTTPClient(baseURL: http.baseURL, timeout: 5))
    }

    @Test func headerStyleTokensSurviveTheWire() async throws {
        let (_, http, client) = try authOverHTTP()
        defer { http.stop() }
        let signIn = try await client.send(
            Requests.json("/auth/signin", ["username": "alice", "password": "wonderland"]))
        #expect(signIn.status == 200)
        let refresh = try #require(signIn.headers["Authorization-refresh"])
        let refreshed = try await client.send(Requests.headerRefresh(refresh))
        #expect(refreshed.status == 200)
        let me = try await client.send(Requests.me(authorization: refreshed.headers["Authorization"]))
        #expect(me.string("sub") == "alice")
    }

    @Test func aTimeoutUnderASecondIsKeptNotTruncatedOrDefaulted() {
        // FoundationNetworking would truncate half a second to zero, or fall back on its 60 s default.
        let client = URLSessionHTTPClient(baseURL: URL(string: "http://127.0.0.1:9")!, timeout: 0.5)
        #expect(client.timeout > 0 && client.timeout <= 1)
    }

    @Test func cancelledBeforeSendingNeverStarts() async throws {
        let client = URLSessionHTTPClient(baseURL: URL(string: "http://127.0.0.1:9")!)
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.send(HTTPRequest(method: "GET", path: "/"))
        }
        let outcome = await call.result
        #expect(throws: HTTPClientError.transport("the request was cancelled")) { try outcome.get() }
    }

    @Test func clientIsReleasedAfterUse() async throws {
        let http = try LoopbackHTTPServer { _ in HTTPResponse(status: 204) }
        defer { http.stop() }
        weak var released: URLSessionHTTPClient?
        do {
            let client = URLSessionHTTPClient(baseURL: http.baseURL)
            released = client
            #expect(try await client.send(HTTPRequest(method: "GET", path: "/")).status == 204)
        }
        #expect(released == nil)
    }

    @Test func garbageRequestLineGets400AndTheServerKeepsServing() async throws {
        let (_, http, client) = try authOverHTTP()
        defer { http.stop() }
        let garbage = await RawSocket.exchange(
            port: http.port, sending: Array("\u{1}\u{2} NOT HTTP AT ALL\r\n\r\n".utf8))
        #expect(garbage.hasPrefix("HTTP/1.1 400 "))
        #expect(garbage.contains("Connection: close"))
        #expect(try await client.send(Requests.passwordGrant()).status == 200)
    }

    @Test func malformedAndOversizedRequestsAreRefused() async throws {
        let http = try LoopbackHTTPServer { _ in HTTPResponse(status: 200) }
        defer { http.stop() }
        func status(_ text: String) async -> String {
            let reply = await RawSocket.exchange(port: http.port, sending: Array(text.utf8))
            return String(reply.prefix(12))
        }
        #expect(await status("GET / HTTP/1.1\r\nHost: x\r\n\r\n") == "HTTP/1.1 200")
        #expect(await status("GET / HTTP/1.1\r\n\r\n") == "HTTP/1.1 400")  // no Host
        #expect(await status("GET / HTTP/2.0\r\nHost: x\r\n\r\n") == "HTTP/1.1 505")
        #expect(await status("GET  / HTTP/1.1\r\nHost: x\r\n\r\n") == "HTTP/1.1 400")
        #expect(await status("GET http://x/ HTTP/1.1\r\nHost: x\r\n\r\n") == "HTTP/1.1 400")
        #expect(await status("GET / HTTP/1.1\r\nHost : x\r\n\r\n") == "HTTP/1.1 400")
        #expect(await status("GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n") == "HTTP/1.1 400")
        #expect(await status("GET / HTTP/1.1\nHost: x\n\n") == "HTTP/1.1 400")
        #expect(await status("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n") == "HTTP/1.1 400")
        #expect(
            await status("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab")
                == "HTTP/1.1 400")
        #expect(
            await status("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n") == "HTTP/1.1 411")
        #expect(await status("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 65537\r\n\r\n") == "HTTP/1.1 413")
        #expect(
            await status("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 17_000))\r\n\r\n")
                == "HTTP/1.1 431")
        #expect(
            await status("GET /\(String(repeating: "a", count: 17_000)) HTTP/1.1\r\nHost: x\r\n\r\n") == "HTTP/1.1 414")
        #expect(await status("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello") == "HTTP/1.1 200")
    }

    @Test func stalledRequestTimesOutWith408() async throws {
        let http = try LoopbackHTTPServer(readTimeout: 0.3) { _ in HTTPResponse(status: 200) }
        defer { http.stop() }
        let reply = await RawSocket.exchange(port: http.port, sending: Array("GET / HTTP/1.1\r\nHost: x\r\n".utf8))
        #expect(reply.hasPrefix("HTTP/1.1 408 "))
    }

    @Test func connectionsBeyondTheLimitGet503() async throws {
        // A generous read timeout: the held connection must outlive a slow, loaded test run (20 s was
        // not enough with the whole suite and other builds on two cores: the test itself took 37 s).
        let http = try LoopbackHTTPServer(readTimeout: 300, maxConnections: 1) { _ in HTTPResponse(status: 200) }
        defer { http.stop() }
        let holder = RawSocket.connect(port: http.port)
        defer { close(holder) }
        let refused = await RawSocket.exchange(
            port: http.port, sending: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(refused.hasPrefix("HTTP/1.1 503 "))
        RawSocket.send(holder, Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(await RawSocket.readAll(holder).hasPrefix("HTTP/1.1 200 "))
    }

    @Test func stopReleasesThePort() throws {
        let first = try LoopbackHTTPServer { _ in HTTPResponse(status: 200) }
        let port = first.port
        first.stop()
        first.stop()
        let second = try LoopbackHTTPServer(port: port) { _ in HTTPResponse(status: 204) }
        defer { second.stop() }
        #expect(second.port == port)
        #expect(throws: LoopbackHTTPServerError.self) {
            _ = try LoopbackHTTPServer(port: port) { _ in HTTPResponse(status: 200) }
        }
    }

    @Test func droppingTheServerStopsIt() throws {
        var port: UInt16 = 0
        do {
            let dropped = try LoopbackHTTPServer { _ in HTTPResponse(status: 200) }
            port = dropped.port
        }
        let again = try LoopbackHTTPServer(port: port) { _ in HTTPResponse(status: 200) }
        again.stop()
    }
}
