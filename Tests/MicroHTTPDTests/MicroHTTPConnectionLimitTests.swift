#if canImport(Glibc)
    import Glibc
#endif
import Data
import Foundation
import MicroHTTPD
import TestSupport
import Testing

/// A daemon at its connection limit, over real sockets: libmicrohttpd stops watching the listening socket at
/// the start of a run that finds the limit reached and watches it again only at the start of a later run, so a
/// run that ends every connection must be followed by another, or the daemon never accepts again.
@Suite(.timeLimit(.minutes(2))) struct MicroHTTPConnectionLimitTests {
    /// Seen in the hostile fuzz at `hardtack serve`: one of its two loops, its connections all ended together,
    /// took no connection again, and every one the kernel gave it waited for ever.
    @Test func aDaemonWhoseConnectionsAllEndTogetherAtItsLimitAcceptsTheNextOnes() async throws {
        // One loop, four connections at once, and two seconds of quiet before a kept connection is ended.
        let limits = MicroHTTPServerLimits(connections: 4, idleSeconds: 2, threads: 1)
        let server = try MicroHTTPServer(port: 0, limits: limits) { _ in
            HTTPResponse(status: 200, body: Data("ok".utf8))
        }
        // Four fill the limit, are answered, and are kept until the idle limit ends them, together (their
        // deadlines are milliseconds apart, so one run nearly always ends all four: without the fix, this
        // failed every time it was run); four more wait in the kernel's queue meanwhile.
        let sockets = (0..<8).map { _ in RawSocket.connect(port: server.port) }
        for socket in sockets { RawSocket.send(socket, Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)) }
        var answered = 0
        // Each read ends when the server closes the connection, or after 5 s of silence.
        for socket in sockets {
            if await RawSocket.readAll(socket).hasPrefix("HTTP/1.1 200") { answered += 1 }
            close(socket)
        }
        #expect(answered == 8, "the four that waited were accepted and answered too: \(answered) of 8")
        let next = await RawSocket.exchange(
            port: server.port, sending: Array("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect(next.hasPrefix("HTTP/1.1 200"), "a connection after them is answered: \(next.prefix(40))")
        // The tally saw the loop full twice at least (the first four, the four after) and five times at most (the
        // second four accepted one at a time, as the first ones ended), and once stopped, no connection open.
        let full = server.connections.timesFull
        #expect((2...5).contains(full), "the loop was counted full \(full) times")
        await server.stop(grace: .seconds(1))
        #expect(server.connections.open == 0, "\(server.connections.open) connections counted open after the stop")
    }

    /// The limit is the whole server's, exactly: three connections on two loops are shares of two and one, not
    /// two each. Sixteen connections, spread over the loops by the kernel's hash, all send a request and keep
    /// their connections: three are answered, the others wait in their loop's queue.
    @Test func theLoopsSharesAddUpToTheLimit() async throws {
        let limits = MicroHTTPServerLimits(connections: 3, idleSeconds: 30, threads: 2)
        let server = try MicroHTTPServer(port: 0, limits: limits) { _ in
            HTTPResponse(status: 200, body: Data("ok".utf8))
        }
        let sockets = (0..<16).map { _ in RawSocket.connect(port: server.port) }
        defer { for socket in sockets { close(socket) } }
        for socket in sockets { RawSocket.send(socket, Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)) }
        // Counted until three are answered (5 s at most), and once more half a second later.
        func answeredNow() async -> Int {
            var count = 0
            for socket in sockets where await RawSocket.hasInput(socket, within: 0) { count += 1 }
            return count
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while await answeredNow() < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        try await Task.sleep(for: .milliseconds(500))
        let answered = await answeredNow()
        // At most three either way; all three unless the hash gave one loop fewer than its share (about 1 in 3,000).
        #expect(answered == 3, "\(answered) of 16 answered at once, with a limit of 3")
        await server.stop(grace: .seconds(1))
    }
}
