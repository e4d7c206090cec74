import Data
import Foundation
import MicroHTTPD
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A client that closes its side with the last bytes of a request that is not whole, in one segment, over real
/// sockets: libmicrohttpd 0.9.75 reads the bytes, takes the short read for a drained socket and never sees the
/// end, so the connection was held to the idle limit. The server's sweep closes it within a second or two; a
/// client that closes its side the same way after a whole request is still answered.
@Suite(.timeLimit(.minutes(3))) struct MicroHTTPAbandonedRequestTests {
    /// Twenty seconds of quiet before a connection is dropped as idle, and fifteen for a head: neither comes
    /// within a test.
    static let limits = MicroHTTPServerLimits(idleSeconds: 20, headSeconds: 15)

    /// A server answering `ok` after `delay`, and how many requests reached its handler.
    static func server(delay: Duration = .zero) throws -> (MicroHTTPServer, Locked<Int>) {
        let handled = Locked(0)
        let server = try MicroHTTPServer(port: 0, limits: limits) { _ in
            handled.withLock { $0 += 1 }
            if delay > .zero { try? await Task.sleep(for: delay) }
            return HTTPResponse(status: 200, body: Data("ok".utf8))
        }
        return (server, handled)
    }

    /// Connects to `port`, sends `first` and reads its answer when given, then sends `last` held back
    /// (`MSG_MORE`) and closes its sending side, so that the bytes and the end leave in one segment. Returns the
    /// seconds until the server closed the connection (`nil` after 15 s) and what was read after `first`'s
    /// answer.
    static func closing(with last: String, after first: String? = nil, port: UInt16) async -> (Double?, String) {
        await withCheckedContinuation { continuation in
            Thread {
                let fd = RawSocket.connect(port: port)
                defer { close(fd) }
                if let first {
                    RawSocket.send(fd, Array(first.utf8))
                    guard read(fd, until: Date() + 5, stopAt: "\r\n\r\nok").hasSuffix("ok") else {
                        return continuation.resume(returning: (nil, "no answer to the first request"))
                    }
                }
                let bytes = Array(last.utf8)
                let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_MORE | MSG_NOSIGNAL)) }
                guard sent == bytes.count else { return continuation.resume(returning: (nil, "the send failed")) }
                shutdown(fd, Int32(SHUT_WR))
                let start = Date()
                var ended = false
                let text = read(fd, until: start + 15, stopAt: nil, ended: &ended)
                continuation.resume(returning: (ended ? Date().timeIntervalSince(start) : nil, text))
            }.start()
        }
    }

    /// Sends a request to `port`, reads the first bytes of its answer, closes its sending side, reads nothing
    /// for `pause` (sweeps pass while the server is still writing) and then everything; returns what it read.
    static func closingWhileReadingSlowly(port: UInt16, pause: Duration) async -> [UInt8] {
        await withCheckedContinuation { continuation in
            Thread {
                let fd = RawSocket.connect(port: port)
                defer { close(fd) }
                RawSocket.send(fd, Array("GET /large HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                var received: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 65536)
                let first = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, 16, 0) }
                guard first > 0 else { return continuation.resume(returning: []) }
                received += chunk[0..<first]
                shutdown(fd, Int32(SHUT_WR))
                Thread.sleep(forTimeInterval: pause / .seconds(1))
                let deadline = Date() + 15
                while Date() < deadline {
                    let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if count <= 0 { break }
                    received += chunk[0..<count]
                }
                continuation.resume(returning: received)
            }.start()
        }
    }

    /// What `fd` gives until `deadline`, its end, or `stopAt` at the end of what was read.
    private static func read(_ fd: Int32, until deadline: Date, stopAt: String?) -> String {
        var ended = false
        return read(fd, until: deadline, stopAt: stopAt, ended: &ended)
    }

    private static func read(_ fd: Int32, until deadline: Date, stopAt: String?, ended: inout Bool) -> String {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            if let stopAt, received.ends(with: Array(stopAt.utf8)) { break }
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let wait = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard poll(&ready, 1, wait) > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count <= 0 {
                ended = true
                break
            }
            received.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: received, as: UTF8.self)
    }

    @Test(arguments: [
        "GET /cut HTTP/1.1\r\nHost: x\r\nX-Pad: half a fie",
        "POST /cut HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nfour",
        "POST /cut HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nfour\r\n",
    ])
    func aRequestCutShortWithItsClientsEndIsClosedSoon(request: String) async throws {
        let (server, handled) = try Self.server()
        let (seconds, text) = await Self.closing(with: request, port: server.port)
        let closed = try #require(seconds, "the connection was still open 15 s after the client's end")
        #expect(closed < 4, "closed after \(closed) s")
        #expect(text.isEmpty, "an answer to a request that never became whole: \(text.prefix(60))")
        #expect(handled.withLock { $0 } == 0)
        await server.stop(grace: .seconds(1))
    }

    @Test func aKeptConnectionsNextRequestCutShortIsClosedSoon() async throws {
        let (server, handled) = try Self.server()
        let (seconds, text) = await Self.closing(
            with: "GET /next HTTP/1.1\r\nHo", after: "GET /first HTTP/1.1\r\nHost: x\r\n\r\n", port: server.port)
        let closed = try #require(seconds, "the connection was still open 15 s after the client's end")
        #expect(closed < 4, "closed after \(closed) s")
        #expect(text.isEmpty, "\(text.prefix(60))")
        #expect(handled.withLock { $0 } == 1)
        await server.stop(grace: .seconds(1))
    }

    /// A whole request closed the same way is answered, though its handler takes long enough for sweeps to pass
    /// while the connection is suspended; so is one with a body.
    @Test(arguments: [
        "GET /whole HTTP/1.1\r\nHost: x\r\n\r\n",
        "POST /whole HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nfour",
    ])
    func aWholeRequestClosedWithItsLastBytesIsAnswered(request: String) async throws {
        let (server, handled) = try Self.server(delay: .milliseconds(2500))
        let (seconds, text) = await Self.closing(with: request, port: server.port)
        #expect(seconds != nil, "the connection was still open 15 s after the client's end")
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n") && text.hasSuffix("\r\n\r\nok"), "\(text.prefix(80))")
        #expect(handled.withLock { $0 } == 1)
        await server.stop(grace: .seconds(1))
    }

    /// A client that closes its side while an answer too large for the sockets' buffers is still being written,
    /// and reads nothing for a while: its socket holds only its end, but the connection is writing, and is not cut.
    @Test func aLargeAnswerToAClientThatClosedItsSideWhileReadingSlowlyIsWrittenWhole() async throws {
        let size = 24 << 20
        let body = Data(repeating: UInt8(ascii: "b"), count: size)
        let server = try MicroHTTPServer(port: 0, limits: Self.limits) { _ in HTTPResponse(status: 200, body: body) }
        let received = await Self.closingWhileReadingSlowly(port: server.port, pause: .milliseconds(2500))
        let head = String(decoding: received.prefix(512), as: UTF8.self)
        #expect(
            head.hasPrefix("HTTP/1.1 200 OK\r\n") && head.contains("\r\nContent-Length: \(size)\r\n"),
            "\(head.prefix(80))")
        let end = try #require(received.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound)
        #expect(received.count - end == size, "\(received.count - end) of \(size) bytes of the answer")
        await server.stop(grace: .seconds(1))
    }
}
