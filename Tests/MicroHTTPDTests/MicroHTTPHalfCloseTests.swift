import Data
import Foundation
import MicroHTTPD
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A client may close its side of the connection once its request is sent (`nc -N`, a script's `shutdown`):
/// it can still read. libmicrohttpd 0.9.75 often reads a connection once more when it resumes with the
/// handler's answer, and closes it without the answer when that read finds the client's end: with 64 such
/// clients at once, only 7 to 17 were answered. The server now writes a whole answer to the socket before
/// libmicrohttpd shuts it.
@Suite struct MicroHTTPHalfCloseTests {
    /// Sends `request` from `count` clients at once, each closing its sending side after it; what each read
    /// until the server closed.
    static func halfClosing(
        _ count: Int, port: UInt16, _ request: @escaping @Sendable (Int) -> String
    ) async
        -> [String]
    {
        await withTaskGroup(of: String.self) { group in
            for index in 0..<count {
                group.addTask {
                    let fd = RawSocket.connect(port: port)
                    defer { close(fd) }
                    RawSocket.send(fd, Array(request(index).utf8))
                    shutdown(fd, Int32(SHUT_WR))
                    return await RawSocket.readAll(fd)
                }
            }
            var all: [String] = []
            for await reply in group { all.append(reply) }
            return all
        }
    }

    /// A server answering `status` with the request's body (or its method when it has none) after a yield.
    static func server(status: Int = 200, date: String? = nil) throws -> MicroHTTPServer {
        try MicroHTTPServer(port: 0) { request in
            await Task.yield()
            let body = request.body.isEmpty ? Data("answered \(request.method)".utf8) : request.body
            var headers = HTTPHeaders([("Content-Type", "text/plain"), ("X-Path", request.path)])
            if let date { headers.add("Date", date) }
            return HTTPResponse(status: status, headers: headers, body: body)
        }
    }

    /// An answer with a `Date` of its own (an upstream's, passed on by the gateway) keeps it, and has one.
    @Test func anAnswersOwnDateIsItsOnlyOne() async throws {
        let date = "Sat, 01 Jan 2000 00:00:00 GMT"
        let server = try Self.server(date: date)
        let replies = await Self.halfClosing(64, port: server.port) { _ in "GET / HTTP/1.1\r\nHost: x\r\n\r\n" }
        #expect(replies.allSatisfy { $0.hasSuffix("\r\n\r\nanswered GET") }, "\(replies.prefix(2))")
        #expect(
            replies.allSatisfy {
                $0.components(separatedBy: "\r\nDate: ").count == 2 && $0.contains("Date: \(date)\r\n")
            },
            "\(replies.prefix(2))")
        #expect(replies.contains { $0.contains("\r\nConnection: close\r\n") }, "no answer was written by the server")
        await server.stop(grace: .seconds(1))
    }

    @Test func halfClosingClientsGetTheirWholeAnswers() async throws {
        let server = try Self.server()
        let replies = await Self.halfClosing(64, port: server.port) { index in
            "POST /echo?n=\(index) HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\nbody-\(index % 10)!"
        }
        let whole = replies.filter { reply in
            reply.hasPrefix("HTTP/1.1 200 OK\r\n") && reply.contains("\r\nDate: ")
                && reply.contains("\r\nContent-Type: text/plain\r\n") && reply.contains("\r\nX-Path: /echo?n=")
                && reply.contains("\r\nContent-Length: 7\r\n")
                && reply.range(of: #"\r\n\r\nbody-\d!$"#, options: .regularExpression) != nil
        }
        #expect(whole.count == 64, "\(replies.filter { !whole.contains($0) }.prefix(3))")
        // The server wrote some of them itself (libmicrohttpd's own answers keep the connection open).
        #expect(replies.contains { $0.contains("\r\nConnection: close\r\n") }, "no answer was written by the server")
        await server.stop(grace: .seconds(1))
    }

    /// The answer to a `HEAD` request has no body, and neither has a 204's, though its handler gave one.
    @Test func halfClosingClientsHeadAnd204AnswersHaveNoBody() async throws {
        let server = try Self.server()
        let heads = await Self.halfClosing(64, port: server.port) { _ in "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n" }
        #expect(
            heads.allSatisfy { $0.hasPrefix("HTTP/1.1 200 OK\r\n") && $0.hasSuffix("\r\n\r\n") }, "\(heads.prefix(2))")
        #expect(heads.allSatisfy { $0.contains("\r\nContent-Length: 13\r\n") }, "the length of the handler's body")
        #expect(heads.contains { $0.contains("\r\nConnection: close\r\n") }, "no answer was written by the server")
        await server.stop(grace: .seconds(1))

        let noContent = try Self.server(status: 204)
        let replies = await Self.halfClosing(64, port: noContent.port) { _ in "DELETE / HTTP/1.1\r\nHost: x\r\n\r\n" }
        #expect(
            replies.allSatisfy { $0.hasPrefix("HTTP/1.1 204 No Content\r\n") && $0.hasSuffix("\r\n\r\n") },
            "\(replies.prefix(2))")
        #expect(!replies.contains { $0.contains("Content-Length") })
        #expect(replies.contains { $0.contains("\r\nConnection: close\r\n") }, "no answer was written by the server")
        await noContent.stop(grace: .seconds(1))
    }

    /// An answer over 64 KiB is not written by the server (libmicrohttpd writes it or closes the connection, and
    /// no client reads one cut short); one under is, whole.
    @Test(arguments: [(60_000, true), (200_000, false)])
    func onlyAnAnswerUpTo64KiBIsWrittenByTheServer(size: Int, written: Bool) async throws {
        let body = Data(repeating: UInt8(ascii: "l"), count: size)
        let server = try MicroHTTPServer(port: 0) { _ in
            await Task.yield()
            return HTTPResponse(status: 200, headers: HTTPHeaders(), body: body)
        }
        let replies = await Self.halfClosing(16, port: server.port) { _ in "GET / HTTP/1.1\r\nHost: x\r\n\r\n" }
        for reply in replies where !reply.isEmpty || written {
            #expect(reply.hasPrefix("HTTP/1.1 200 OK\r\n") && reply.utf8.count > size, "\(reply.prefix(60))")
        }
        let direct = replies.filter { $0.contains("\r\nConnection: close\r\n") }.count
        #expect(written ? direct > 0 : direct == 0, "\(direct) of 16 written by the server")
        await server.stop(grace: .seconds(1))
    }
}
