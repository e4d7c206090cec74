import Data
import DevelopmentServers
import Foundation
import MicroHTTPD
import URLSessionHTTP
import Testing

/// What only URLSessionHTTPClient has to prove, over real HTTP on an ephemeral loopback port (what
/// every client adapter promises is in HTTPClientConformanceTests; what `hardtack serve` answers to
/// hostile requests is in DevelopmentServerTests).
@Suite struct URLSessionHTTPClientTests {
    @Test func headerStyleTokensSurviveTheWire() async throws {
        let auth = EmbeddedAuthServer()
        let http = try MicroHTTPServer(port: 0) { await auth.handle($0) }
        let client = URLSessionHTTPClient(baseURL: http.baseURL, timeout: 5)
        let signIn = try await client.send(
            Requests.json("/auth/signin", ["username": "alice", "password": "wonderland"]))
        #expect(signIn.status == 200)
        let refresh = try #require(signIn.headers["Authorization-refresh"])
        let refreshed = try await client.send(Requests.headerRefresh(refresh))
        #expect(refreshed.status == 200)
        let me = try await client.send(Requests.me(authorization: refreshed.headers["Authorization"]))
        #expect(me.string("sub") == "alice")
        await http.stop(grace: .seconds(1))
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
        let http = try MicroHTTPServer(port: 0) { _ in HTTPResponse(status: 204) }
        weak var released: URLSessionHTTPClient?
        do {
            let client = URLSessionHTTPClient(baseURL: http.baseURL)
            released = client
            #expect(try await client.send(HTTPRequest(method: "GET", path: "/")).status == 204)
        }
        #expect(released == nil)
        await http.stop(grace: .seconds(1))
    }
}
