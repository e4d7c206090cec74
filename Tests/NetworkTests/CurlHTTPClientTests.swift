import CurlHTTP
import Data
import DevelopmentServers
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The libcurl client against the loopback server: the same promises as URLSessionHTTPClient's.
@Suite struct CurlHTTPClientTests {
    @Test func passwordGrantThenApiMe() async throws {
        let auth = EmbeddedAuthServer()
        let http = try LoopbackHTTPServer { await auth.handle($0) }
        defer { http.stop() }
        let client = CurlHTTPClient(baseURL: http.baseURL, timeout: 5)
        let tokens = try await client.send(Requests.passwordGrant())
        #expect(tokens.status == 200)
        #expect(tokens.headers["cache-control"] == "no-store")
        let me = try await client.send(Requests.me(try #require(tokens.string("access_token"))))
        #expect(me.string("sub") == "alice")
        let unauthorized = try await client.send(Requests.me("not-a-token"))
        #expect(unauthorized.status == 401)
        #expect(unauthorized.headers["WWW-Authenticate"] == #"Bearer error="invalid_token""#)
    }

    @Test func requestsArriveIntact() async throws {
        let http = try LoopbackHTTPServer { request in
            let echo: [String: String] = [
                "method": request.method, "path": request.path, "header": request.headers["X-Probe"] ?? "",
                "body": String(decoding: request.body, as: UTF8.self),
            ]
            return HTTPResponse(status: 201, body: try! JSONSerialization.data(withJSONObject: echo))
        }
        defer { http.stop() }
        let body = String(repeating: "é", count: 3_000)
        let reply = try await CurlHTTPClient(baseURL: http.baseURL.appendingPathComponent("/")).send(
            HTTPRequest(
                method: "PUT", path: "/echo?x=1", headers: HTTPHeaders([("X-Probe", "42")]), body: Data(body.utf8)))
        #expect(reply.status == 201)
        #expect(reply.string("method") == "PUT")
        #expect(reply.string("path") == "/echo?x=1")
        #expect(reply.string("header") == "42")
        #expect(reply.string("body") == body)
    }

    @Test func oversizedResponseIsRefused() async throws {
        let http = try LoopbackHTTPServer { _ in HTTPResponse(status: 200, body: Data(count: (1 << 20) + 1)) }
        defer { http.stop() }
        await #expect(throws: HTTPClientError.responseTooLarge(limit: 1 << 20)) {
            try await CurlHTTPClient(baseURL: http.baseURL).send(HTTPRequest(method: "GET", path: "/big"))
        }
        let small = CurlHTTPClient(baseURL: http.baseURL, responseSizeLimit: 2 << 20)
        #expect(try await small.send(HTTPRequest(method: "GET", path: "/big")).body.count == (1 << 20) + 1)
    }

    @Test func serverThatIsNotListeningCannotBeReached() async throws {
        let http = try LoopbackHTTPServer { _ in HTTPResponse(status: 200) }
        let url = http.baseURL
        http.stop()
        await #expect(throws: HTTPClientError.cannotConnect("connection refused")) {
            try await CurlHTTPClient(baseURL: url, timeout: 5).send(HTTPRequest(method: "GET", path: "/"))
        }
    }

    @Test(.timeLimit(.minutes(10))) func silentServerTimesOutAfterItsTimeout() async throws {
        let (listener, port) = RawSocket.silentListener()
        defer { close(listener) }
        let client = CurlHTTPClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, timeout: 0.5)
        let started = ContinuousClock.now
        await #expect(throws: HTTPClientError.timedOut) {
            try await client.send(HTTPRequest(method: "GET", path: "/"))
        }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed > .milliseconds(400), "\(elapsed)")
    }

    @Test func cancellingTheCallerCancelsTheRequestInFlight() async throws {
        let (listener, port) = RawSocket.silentListener()
        defer { close(listener) }
        // A timeout far longer than the bound below: the call must end because it was cancelled, not
        // because it timed out (the bound leaves room for a loaded machine: 5 s was once missed by 0.5 s).
        let client = CurlHTTPClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, timeout: 120)
        let call = Task { try await client.send(HTTPRequest(method: "GET", path: "/slow")) }
        try await Task.sleep(for: .milliseconds(200))
        call.cancel()
        let started = ContinuousClock.now
        let outcome = await call.result
        #expect(ContinuousClock.now - started < .seconds(60))
        #expect(throws: HTTPClientError.transport("the request was cancelled")) { try outcome.get() }
    }

    @Test func redirectsAreNotFollowed() async throws {
        let http = try LoopbackHTTPServer { request in
            request.path == "/elsewhere"
                ? HTTPResponse(status: 200, body: Data("followed".utf8))
                : HTTPResponse(status: 307, headers: HTTPHeaders([("Location", "/elsewhere")]))
        }
        defer { http.stop() }
        let reply = try await CurlHTTPClient(baseURL: http.baseURL).send(Requests.passwordGrant())
        #expect(reply.status == 307)
        #expect(reply.headers["Location"] == "/elsewhere")
    }
}
