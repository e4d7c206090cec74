import Data
import DevelopmentServers
import Foundation
import MicroHTTPD
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What every `HTTPClient` adapter promises, run against each (URLSession's and libcurl's) over real
/// HTTP on a loopback port: requests arrive intact, answers come back whatever their status, a reply
/// over the size limit is refused, a refused connection, a silent server and a cancelled caller each
/// end the call with their own error, and redirects are never followed.
@Suite struct HTTPClientConformanceTests {
    @Test(arguments: HTTPClientAdapter.allCases)
    func passwordGrantThenApiMe(_ adapter: HTTPClientAdapter) async throws {
        let auth = EmbeddedAuthServer()
        let http = try MicroHTTPServer(port: 0) { await auth.handle($0) }
        let client = adapter.client(http.baseURL, timeout: 5)
        let tokens = try await client.send(Requests.passwordGrant())
        #expect(tokens.status == 200)
        #expect(tokens.headers["cache-control"] == "no-store")
        let me = try await client.send(Requests.me(try #require(tokens.string("access_token"))))
        #expect(me.status == 200)
        #expect(me.string("sub") == "alice")
        #expect(me.string("name") == "Alice Liddell")
        let unauthorized = try await client.send(Requests.me("not-a-token"))
        #expect(unauthorized.status == 401)
        #expect(unauthorized.headers["WWW-Authenticate"] == #"Bearer error="invalid_token""#)
        #expect(unauthorized.string("error") == "invalid_token")
        let stats = try await client.send(HTTPRequest(method: "GET", path: "/debug/stats"))
        let counters = try JSONDecoder().decode(AuthServerCounters.self, from: stats.body)
        #expect(counters == AuthServerCounters(signIns: 1, meCalls: 2, unauthorized: 1))
        #expect(await auth.counters == counters)
        await http.stop(grace: .seconds(1))
    }

    @Test(arguments: HTTPClientAdapter.allCases)
    func requestsArriveIntact(_ adapter: HTTPClientAdapter) async throws {
        let http = try MicroHTTPServer(port: 0) { request in
            let echo: [String: String] = [
                "method": request.method, "path": request.path, "header": request.headers["X-Probe"] ?? "",
                "long": request.headers["X-Long"] ?? "", "empty": request.headers["X-Empty"] ?? "absent",
                "body": String(decoding: request.body, as: UTF8.self),
            ]
            return HTTPResponse(status: 201, body: try! JSONSerialization.data(withJSONObject: echo))
        }
        let body = String(repeating: "é", count: 3_000)
        let long = String(repeating: "abcdefgh", count: 300)
        let reply = try await adapter.client(http.baseURL.appendingPathComponent("/")).send(
            HTTPRequest(
                method: "PUT", path: "/echo?x=1",
                // A field longer than the stack's scratch space for a line, and one with an empty value.
                headers: HTTPHeaders([("X-Probe", "42"), ("X-Long", long), ("X-Empty", "")]), body: Data(body.utf8)))
        #expect(reply.status == 201)
        #expect(reply.string("method") == "PUT")
        #expect(reply.string("path") == "/echo?x=1")
        #expect(reply.string("header") == "42")
        #expect(reply.string("long") == long)
        #expect(reply.string("empty") == "", "a field with an empty value is sent, empty")
        #expect(reply.string("body") == body)
        await http.stop(grace: .seconds(1))
    }

    @Test(arguments: HTTPClientAdapter.allCases)
    func oversizedResponseIsRefused(_ adapter: HTTPClientAdapter) async throws {
        let http = try MicroHTTPServer(port: 0) { _ in HTTPResponse(status: 200, body: Data(count: (1 << 20) + 1)) }
        await #expect(throws: HTTPClientError.responseTooLarge(limit: 1 << 20)) {
            try await adapter.client(http.baseURL).send(HTTPRequest(method: "GET", path: "/big"))
        }
        let small = adapter.client(http.baseURL, responseSizeLimit: 2 << 20)
        #expect(try await small.send(HTTPRequest(method: "GET", path: "/big")).body.count == (1 << 20) + 1)
        await http.stop(grace: .seconds(1))
    }

    @Test(arguments: HTTPClientAdapter.allCases)
    func serverThatIsNotListeningCannotBeReached(_ adapter: HTTPClientAdapter) async throws {
        let http = try MicroHTTPServer(port: 0) { _ in HTTPResponse(status: 200) }
        let url = http.baseURL
        await http.stop(grace: .zero)
        await #expect {
            try await adapter.client(url, timeout: 5).send(HTTPRequest(method: "GET", path: "/"))
        } throws: { error in
            if case HTTPClientError.cannotConnect = error { return true }
            return false
        }
    }

    /// A hang is caught by the time limit, not by timing the call: what the test measures includes the
    /// wait for a thread of the concurrency pool, which a loaded machine can starve for minutes (141 s
    /// for this 1 s timeout under ThreadSanitizer with every suite running at once).
    @Test(.timeLimit(.minutes(10)), arguments: HTTPClientAdapter.allCases)
    func silentServerTimesOut(_ adapter: HTTPClientAdapter) async throws {
        let (listener, port) = RawSocket.silentListener()
        defer { close(listener) }
        // Half a second: FoundationNetworking would truncate it to zero and time out at once.
        let client = adapter.client(URL(string: "http://127.0.0.1:\(port)")!, timeout: 0.5)
        let started = ContinuousClock.now
        await #expect(throws: HTTPClientError.timedOut) {
            try await client.send(HTTPRequest(method: "GET", path: "/"))
        }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed > .milliseconds(400), "\(elapsed)")
    }

    @Test(arguments: HTTPClientAdapter.allCases)
    func cancellingTheCallerCancelsTheRequestInFlight(_ adapter: HTTPClientAdapter) async throws {
        let (arrived, arrival) = AsyncStream<Void>.makeStream()
        let (released, release) = AsyncStream<Void>.makeStream()
        let http = try MicroHTTPServer(port: 0) { _ in
            arrival.yield()
            for await _ in released {}
            return HTTPResponse(status: 200)
        }
        // A timeout far longer than the bound below: the call must end because it was cancelled, not
        // because it timed out (the bound leaves room for a loaded machine).
        let client = adapter.client(http.baseURL, timeout: 120)
        let call = Task { try await client.send(HTTPRequest(method: "GET", path: "/slow")) }
        for await _ in arrived { break }
        call.cancel()
        let started = ContinuousClock.now
        let outcome = await call.result
        #expect(ContinuousClock.now - started < .seconds(60))
        #expect(throws: HTTPClientError.transport("the request was cancelled")) { try outcome.get() }
        release.finish()
        await http.stop(grace: .seconds(1))
    }

    @Test(arguments: HTTPClientAdapter.allCases)
    func redirectsAreNotFollowed(_ adapter: HTTPClientAdapter) async throws {
        let http = try MicroHTTPServer(port: 0) { request in
            request.path == "/elsewhere"
                ? HTTPResponse(status: 200, body: Data("followed".utf8))
                : HTTPResponse(status: 307, headers: HTTPHeaders([("Location", "/elsewhere")]))
        }
        let reply = try await adapter.client(http.baseURL).send(Requests.passwordGrant())
        #expect(reply.status == 307)
        #expect(reply.headers["Location"] == "/elsewhere")
        await http.stop(grace: .seconds(1))
    }
}
