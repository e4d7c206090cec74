#if canImport(Glibc)
    import Glibc
#endif
import Data
import Foundation
import MicroHTTPD
import Synchronization
import TestSupport
import Testing

/// The deadline on a request's head, over real sockets: a client that trickles its head, never quiet long
/// enough for the idle limit, is dropped once the head is late, on a new connection or a kept one; a slow
/// handler and a connection busy with quick requests for longer than the deadline are not.
@Suite(.timeLimit(.minutes(3))) struct MicroHTTPHeadDeadlineTests {
    /// Two seconds for a head; ten of quiet before a connection is dropped as idle.
    static let limits = MicroHTTPServerLimits(idleSeconds: 10, headSeconds: 2)

    /// A server answering `ok` after `delay`, and the statuses its observer was told of.
    static func server(delay: Duration = .zero) throws -> (MicroHTTPServer, Locked<[Int]>) {
        let refused = Locked<[Int]>([])
        let server = try MicroHTTPServer(
            port: 0, limits: limits,
            replying: { _ in
                if delay > .zero { try? await Task.sleep(for: delay) }
                return .complete(HTTPResponse(status: 200, body: Data("ok".utf8)))
            }, refused: { _, _, status in refused.withLock { $0.append(status) } })
        return (server, refused)
    }

    @Test func aClientTricklingItsHeadIsDroppedOnceItIsLate() async throws {
        let (server, refused) = try Self.server()
        let trickled = await Trickle.run(port: server.port, first: nil)
        let seconds = try #require(trickled, "the connection was still open after 20 s of trickling")
        #expect(seconds >= 1.5 && seconds < 15, "dropped after \(seconds) s")
        #expect(refused.withLock { $0 }.isEmpty, "a cut is not logged: it may be a kept connection's silence")
        await server.stop(grace: .seconds(1))
    }

    @Test func aRequestLineEndingJustBeforeTheDeadlineGivesTheFieldsNoMoreTime() async throws {
        // Four seconds for a head; the request line's 20 bytes take about 3.5 s, the fields trickle after.
        let server = try MicroHTTPServer(port: 0, limits: MicroHTTPServerLimits(idleSeconds: 10, headSeconds: 4)) { _ in
            HTTPResponse(status: 200)
        }
        let trickled = await Trickle.run(port: server.port, first: nil, linePause: .milliseconds(175))
        let seconds = try #require(trickled, "the connection was still open after 20 s of trickling")
        // Counted from the connection's start: cut within a sweep or two of 4 s, never 4 s after the line.
        #expect(seconds >= 3.5 && seconds < 7, "dropped after \(seconds) s")
        await server.stop(grace: .seconds(1))
    }

    @Test func aKeptConnectionTricklingItsNextHeadIsDropped() async throws {
        let (server, _) = try Self.server()
        let trickled = await Trickle.run(port: server.port, first: Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let seconds = try #require(trickled, "the connection was still open after 20 s of trickling")
        #expect(seconds >= 1.5 && seconds < 15, "dropped after \(seconds) s")
        await server.stop(grace: .seconds(1))
    }

    @Test func aHandlerSlowerThanTheDeadlineIsAnswered() async throws {
        let (server, refused) = try Self.server(delay: .seconds(4))
        let reply = await RawSocket.exchange(
            port: server.port, sending: Array("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect(reply.hasPrefix("HTTP/1.1 200") && reply.hasSuffix("ok"), "\(reply.prefix(80))")
        #expect(refused.withLock { $0 }.isEmpty)
        await server.stop(grace: .seconds(1))
    }

    @Test func aConnectionBusyWithQuickRequestsForLongerThanTheDeadlineIsKept() async throws {
        let (server, refused) = try Self.server()
        let answered = await Trickle.keptAlive(port: server.port, requests: 30, pause: .milliseconds(150))
        #expect(answered == 30)
        #expect(refused.withLock { $0 }.isEmpty)
        await server.stop(grace: .seconds(1))
    }
}
