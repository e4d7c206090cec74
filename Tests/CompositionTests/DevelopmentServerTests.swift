import DevelopmentComposition
import Foundation
import MicroHTTPD
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `hardtack serve` over real sockets: the auth server reached with the request's `Host`, hostile and
/// oversized requests answered (never a crash), a silent client dropped, and the port freed when it stops.
@Suite(.timeLimit(.minutes(3))) struct DevelopmentServerTests {
    static func start(port: UInt16 = 0, limits: MicroHTTPServerLimits = DevelopmentServer.limits) throws
        -> DevelopmentServer
    {
        try DevelopmentServer(
            port: port, accessTokenLifetime: 300, refreshTokenInBody: false, bareAuthorization: false, limits: limits)
    }

    /// The status line of the answer to `text`, sent raw.
    static func status(_ server: DevelopmentServer, _ text: String) async -> String {
        String(await RawSocket.exchange(port: server.port, sending: Array(text.utf8)).prefix(12))
    }

    @Test func theIssuerIsTheAddressTheRequestReached() async throws {
        let server = try Self.start()
        let reply = await RawSocket.exchange(
            port: server.port,
            sending: Array(
                "GET /.well-known/openid-configuration HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n"
                    .utf8))
        #expect(reply.hasPrefix("HTTP/1.1 200"))
        #expect(reply.contains(#""issuer":"http:\/\/127.0.0.1:\#(server.port)""#), "\(reply.suffix(300))")
        await server.stop()
    }

    @Test func garbageIsAnsweredWith400AndTheServerKeepsServing() async throws {
        let server = try Self.start()
        let garbage = await RawSocket.exchange(
            port: server.port, sending: Array("\u{1}\u{2} NOT HTTP AT ALL\r\n\r\n".utf8))
        #expect(garbage.hasPrefix("HTTP/1.1 400 "), "\(garbage.prefix(80))")
        let stats = await Self.status(server, "GET /debug/stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(stats == "HTTP/1.1 200")
        await server.stop()
    }

    @Test func malformedAndOversizedRequestsAreRefused() async throws {
        let server = try Self.start()
        let close = "Connection: close\r\n"
        #expect(await Self.status(server, "GET /debug/stats HTTP/1.1\r\nHost: x\r\n\(close)\r\n") == "HTTP/1.1 200")
        // No Host: the issuer would be a guess.
        #expect(await Self.status(server, "GET /debug/stats HTTP/1.1\r\n\(close)\r\n") == "HTTP/1.1 400")
        #expect(await Self.status(server, "GET /debug/stats HTTP/1.0\r\n\r\n") == "HTTP/1.1 400")
        #expect(await Self.status(server, "GET / HTTP/2.0\r\nHost: x\r\n\r\n") == "HTTP/1.1 505")
        #expect(await Self.status(server, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n") == "HTTP/1.1 400")
        let over = String(repeating: "b", count: 64 * 1024 + 1)
        #expect(
            await Self.status(server, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \(over.utf8.count)\r\n\r\n\(over)")
                == "HTTP/1.1 413")
        let big = String(repeating: "a", count: 17_000)
        #expect(await Self.status(server, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(big)\r\n\r\n") == "HTTP/1.1 431")
        #expect(await Self.status(server, "GET /\(big) HTTP/1.1\r\nHost: x\r\n\r\n") == "HTTP/1.1 414")
        // A form at the limit is handled (the auth server refuses the grant, not the HTTP side).
        let form = "grant_type=password&" + String(repeating: "x", count: 64 * 1024 - 20)
        let handled = await Self.status(
            server,
            "POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Content-Length: \(form.utf8.count)\r\n\(close)\r\n\(form)")
        #expect(handled == "HTTP/1.1 400")
        #expect(await Self.status(server, "GET /debug/stats HTTP/1.1\r\nHost: x\r\n\(close)\r\n") == "HTTP/1.1 200")
        await server.stop()
    }

    @Test func aChunkedBodyIsRead() async throws {
        let server = try Self.start()
        let form = "grant_type=password&username=alice&password=wonderland&client_id=hardtack-cli"
        let chunked = String(form.utf8.count, radix: 16) + "\r\n\(form)\r\n0\r\n\r\n"
        let reply = await RawSocket.exchange(
            port: server.port,
            sending: Array(
                ("POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n\(chunked)").utf8))
        #expect(reply.hasPrefix("HTTP/1.1 200") && reply.contains("access_token"), "\(reply.prefix(200))")
        await server.stop()
    }

    @Test func aSilentClientIsDropped() async throws {
        let server = try Self.start(limits: MicroHTTPServerLimits(idleSeconds: 1))
        // Half a request head, then silence: the connection is closed (a read sees its end), unanswered.
        let socket = RawSocket.connect(port: server.port)
        defer { close(socket) }
        RawSocket.send(socket, Array("GET /debug/stats HTTP/1.1\r\nHost: x\r\n".utf8))
        let reply = await RawSocket.readAll(socket)
        #expect(!reply.contains("200"))
        // Closed by the server (end of stream), not left open until the read gave up (no data yet).
        var byte: UInt8 = 0
        #expect(recv(socket, &byte, 1, Int32(MSG_DONTWAIT)) == 0)
        await server.stop()
    }

    @Test func stoppingFreesThePortAndABusyPortIsAClearError() async throws {
        let first = try Self.start()
        let port = first.port
        await first.stop()
        let second = try Self.start(port: port)
        #expect(second.port == port && second.baseURL.absoluteString == "http://127.0.0.1:\(port)")
        #expect {
            _ = try Self.start(port: port)
        } throws: { error in
            "\(error)".contains("cannot listen on 127.0.0.1:\(port)")
        }
        await second.stop()
    }

    @Test func droppingTheServerStopsIt() async throws {
        var port: UInt16 = 0
        do {
            let dropped = try Self.start()
            port = dropped.port
        }
        let again = try Self.start(port: port)
        await again.stop()
    }
}
