#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import CurlHTTP
import Data
import Foundation
import MicroHTTPD
import TestSupport
import Testing

/// Streamed answers over real sockets: sent as their writer fills them (no thread waiting while it does
/// not), the writer held back by a client that reads slowly and stopped by one that leaves, and every
/// early end (the writer failing, the server stopping or let go of) seen by the client as an answer cut
/// short, never a hang.
@Suite(.timeLimit(.minutes(3))) struct MicroHTTPStreamingTests {
    /// Byte i of every test body.
    static let pattern = (0..<(65536 + 256)).map { UInt8(truncatingIfNeeded: $0) }

    /// Writes `count` pattern bytes into `writer`, in pieces of `piece`; how many it took before a refusal.
    @discardableResult
    static func fill(_ writer: HTTPBodyWriter, _ count: Int, piece: Int = 10_000, from start: Int = 0) -> Int {
        var written = start
        while written < start + count {
            let size = min(piece, start + count - written)
            let accepted = pattern[(written % 256)..<(written % 256 + size)].withUnsafeBytes { writer.write($0) }
            guard accepted else { break }
            written += size
        }
        return written - start
    }

    /// A server whose every answer is a stream that `produce` fills on a thread of its own.
    static func server(
        capacity: Int = 256 << 10, _ produce: @escaping @Sendable (HTTPBodyWriter) -> Void
    ) throws -> MicroHTTPServer {
        try MicroHTTPServer(
            port: 0,
            replying: { request in
                if request.path == "/plain" { return .complete(HTTPResponse(status: 200, body: Data("plain".utf8))) }
                let (body, writer) = HTTPBodyStream.pipe(capacity: capacity)
                Thread { produce(writer) }.start()
                return .streamed(
                    HTTPStreamedResponse(
                        status: 200, headers: HTTPHeaders([("Content-Type", "application/octet-stream"), ("X-Answer", "yes")]),
                        body: body))
            })
    }

    /// A client whose timeout (a minute) outlasts any wait for a busy test process's threads, so that an
    /// answer cut short is told apart from one the client gave up on.
    static func client(_ server: MicroHTTPServer) -> CurlHTTPClient {
        CurlHTTPClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, timeout: 60, responseSizeLimit: .max)
    }

    @Test func aStreamedBodyReachesTheClientWholeInOrderThroughItsBoundedBuffer() async throws {
        let server = try Self.server(capacity: 64 << 10) { writer in
            // A pause first: the server finds nothing to send and suspends the connection until bytes come.
            Thread.sleep(forTimeInterval: 0.1)
            Self.fill(writer, 8 << 20)
            writer.finish()
        }
        let response = try await Self.client(server).stream(HTTPRequest(method: "GET", path: "/"))
        #expect(response.status == 200)
        #expect(response.headers["X-Answer"] == "yes")
        #expect(response.headers["Transfer-Encoding"] == "chunked")
        let read = await StreamedBody.drainOnThread(response.body)
        #expect(read.failure == nil)
        #expect(read.count == 8 << 20 && read.inOrder)
        await server.stop(grace: .seconds(1))
    }

    @Test func anHTTP10ClientGetsTheBodyToTheConnectionsClose() async throws {
        let server = try Self.server { writer in
            _ = writer.write(Data("streamed to the end".utf8))
            writer.finish()
        }
        let reply = await RawSocket.exchange(port: server.port, sending: Array("GET / HTTP/1.0\r\n\r\n".utf8))
        #expect(reply.hasPrefix("HTTP/1.0 200") || reply.hasPrefix("HTTP/1.1 200"), "\(reply.prefix(40))")
        #expect(reply.hasSuffix("\r\n\r\nstreamed to the end"), "\(reply.suffix(40))")
        await server.stop(grace: .seconds(1))
    }

    @Test func aWriterThatFailsCutsTheAnswerShortAndTheServerGoesOn() async throws {
        let server = try Self.server { writer in
            Self.fill(writer, 100_000)
            writer.fail(.transport("the upstream went away"))
        }
        let client = Self.client(server)
        let response = try await client.stream(HTTPRequest(method: "GET", path: "/"))
        let read = await StreamedBody.drain(response.body)
        #expect(read.count <= 100_000 && read.inOrder)
        #expect(read.failure == .transport("the connection was lost"))
        #expect(try await client.send(HTTPRequest(method: "GET", path: "/plain")).status == 200)
        await server.stop(grace: .seconds(1))
    }

    @Test func aClientThatReadsNothingHoldsTheWriterBackAndOneThatLeavesStopsIt() async throws {
        let written = Locked(0)
        let refused = Locked(false)
        let server = try Self.server { writer in
            let total = 256 << 20
            written.withLock { $0 = Self.fill(writer, total, piece: 65536) }
            refused.withLock { $0 = true }
        }
        let socket = RawSocket.connect(port: server.port)
        RawSocket.send(socket, Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        try await Task.sleep(for: .milliseconds(500))
        #expect(!refused.withLock { $0 }, "the writer is still held back by the client that reads nothing")
        close(socket)
        while !refused.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(written.withLock { $0 } < 256 << 20, "the writer was stopped before its end")
        while server.requestsInFlight > 0 { try await Task.sleep(for: .milliseconds(10)) }
        await server.stop(grace: .seconds(1))
    }

    @Test func stoppingCutsAStreamStillRunningWhenTheGraceEnds() async throws {
        let writers = Locked<[HTTPBodyWriter]>([])
        let server = try Self.server { writer in
            Self.fill(writer, 10_000)
            // Nothing more, nor an end: the connection waits suspended for bytes that never come.
            writers.withLock { $0.append(writer) }
        }
        let response = try await Self.client(server).stream(HTTPRequest(method: "GET", path: "/"))
        #expect(try await response.body.next()?.count ?? 0 > 0)
        await server.stop(grace: .milliseconds(200))
        let read = await StreamedBody.drain(response.body)
        #expect(read.failure == .transport("the connection was lost"))
        while writers.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        let writer = writers.withLock { $0[0] }
        #expect(writer.isClosed && !writer.write(Data(count: 1)))
        #expect(server.requestsInFlight == 0)
    }

    @Test func aStreamThatEndsWithinTheGraceIsSentWhole() async throws {
        let server = try Self.server { writer in
            Self.fill(writer, 10_000)
            Thread.sleep(forTimeInterval: 0.3)
            Self.fill(writer, 10_000, from: 10_000)
            writer.finish()
        }
        let response = try await Self.client(server).stream(HTTPRequest(method: "GET", path: "/"))
        let reading = Task { await StreamedBody.drain(response.body) }
        await server.stop(grace: .seconds(5))
        let read = await reading.value
        #expect(read.failure == nil)
        #expect(read.count == 20_000 && read.inOrder)
    }

    @Test func aServerLetGoOfWithAStreamWaitingCutsIt() async throws {
        var server: MicroHTTPServer? = try Self.server { writer in
            Self.fill(writer, 10_000)
            Thread.sleep(forTimeInterval: 30)
            writer.finish()
        }
        let response = try await Self.client(server!).stream(HTTPRequest(method: "GET", path: "/"))
        #expect(try await response.body.next()?.count ?? 0 > 0)
        server = nil
        let read = await StreamedBody.drain(response.body)
        #expect(read.failure != nil)
    }
}
