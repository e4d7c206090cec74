import CurlHTTP
import Data
import Foundation
import MicroHTTPD
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// libcurl behind a host name it has to resolve: its resolver thread hands the answer over a socket pair,
/// which curl watches, lets go of and closes without a word, and the connection's socket then often gets
/// the same number. The event loop must watch the new socket, not take it for the old one (a call then
/// waited for curl's next timer, a second here, or for its timeout). ``EpollLoopTests`` pins the loop's part
/// exactly; this is the whole path.
@Suite(.timeLimit(.minutes(1))) struct CurlResolvedNameTests {
    /// The machine's own name, which its hosts file resolves to a loopback or local address.
    static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Test func callsToANameCurlResolvesAreAnsweredEachTimeWithAFreshClient() async throws {
        let name = Self.hostName
        var found: UnsafeMutablePointer<addrinfo>?
        try #require(getaddrinfo(name, nil, nil, &found) == 0, "this machine's name \(name) does not resolve")
        freeaddrinfo(found)
        // On every address, so that whichever the name resolves to is served.
        let server = try MicroHTTPServer(host: "0.0.0.0", port: 0) { request in
            HTTPResponse(status: 200, body: Data(request.path.utf8))
        }
        defer { Task { await server.stop(grace: .seconds(1)) } }
        for round in 0..<8 {
            // A new client each time: a new cache of names, so each resolves again; no kept connection, so
            // each call connects.
            let client = CurlHTTPClient(
                baseURL: URL(string: "http://\(name):\(server.port)")!, timeout: 5, idleConnections: 0)
            let started = ContinuousClock.now
            let response = try await client.send(HTTPRequest(method: "GET", path: "/\(round)"))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "/\(round)")
            #expect(ContinuousClock.now - started < .seconds(3), "round \(round) waited for its timeout")
        }
    }
}
