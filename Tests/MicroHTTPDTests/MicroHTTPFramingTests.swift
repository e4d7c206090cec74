import Data
import Foundation
import MicroHTTPD
import TestSupport
import Testing

/// A request's body is framed by its `Content-Length` or its `Transfer-Encoding` (RFC 9112 §6). A head that
/// frames it in a way two readers could take differently lets a proxy in front see one request where this
/// server would read two (request smuggling): libmicrohttpd 0.9.75 reads the first of two `Content-Length`
/// fields and takes a body whose `Transfer-Encoding` is not exactly `chunked` to run to the connection's end. Each such head is refused
/// before the handler, and the connection closed after the answer.
@Suite struct MicroHTTPFramingTests {
    /// A server recording the path of each request its handler gets.
    static func recordingServer() throws -> (MicroHTTPServer, Locked<[String]>) {
        let paths = Locked<[String]>([])
        let server = try MicroHTTPServer(port: 0) { request in
            paths.withLock { $0.append(request.path) }
            return HTTPResponse(status: 200, headers: HTTPHeaders(), body: request.body)
        }
        return (server, paths)
    }

    /// A second request hidden where one reader sees a body.
    static let smuggled = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"

    @Test(arguments: [
        ("Content-Length: 5\r\nContent-Length: \(smuggled.utf8.count + 5)", "400", "invalid_content_length"),
        ("Content-Length: \(smuggled.utf8.count + 5)\r\nContent-Length: 5", "400", "invalid_content_length"),
        ("Content-Length: 5\r\nContent-Length: 5", "400", "invalid_content_length"),
        ("Content-Length: 0\r\nContent-Length: \(smuggled.utf8.count + 5)", "400", "invalid_content_length"),
        ("Transfer-Encoding : chunked\r\nContent-Length: 5", "400", "invalid_field_name"),
        ("Content-Length : \(smuggled.utf8.count + 5)", "400", "invalid_field_name"),
        ("Content-Length: 5\r\nX Forwarded: a", "400", "invalid_field_name"),
        ("Content-Length: 5\r\nTransfer-Encoding: chunked", "400", "conflicting_framing"),
        ("Transfer-Encoding: chunked\r\nContent-Length: 5", "400", "conflicting_framing"),
        ("Transfer-Encoding: gzip", "400", "invalid_transfer_encoding"),
        ("Transfer-Encoding: chunked, gzip", "400", "invalid_transfer_encoding"),
        ("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked", "400", "invalid_transfer_encoding"),
        ("Transfer-Encoding: chunked ", "400", "invalid_transfer_encoding"),
        ("Transfer-Encoding: gzip, chunked", "501", "unsupported_transfer_coding"),
    ])
    func aHeadFramingItsBodyTwoWaysIsRefused(fields: String, status: String, error: String) async throws {
        let (server, paths) = try Self.recordingServer()
        let request = "POST /first HTTP/1.1\r\nHost: x\r\n\(fields)\r\n\r\nhello" + Self.smuggled
        let reply = await RawSocket.exchange(port: server.port, sending: Array(request.utf8))
        #expect(
            reply.hasPrefix("HTTP/1.1 \(status) ") && reply.contains(#""error":"\#(error)""#), "\(reply.prefix(90))")
        #expect(reply.contains("\r\nConnection: close\r\n"))
        // Answered once, and neither request reached the handler.
        #expect(reply.components(separatedBy: "HTTP/1.1 ").count == 2, "\(reply)")
        #expect(paths.withLock { $0 }.isEmpty)
        await server.stop(grace: .seconds(1))
    }

    @Test func anHTTP10RequestWithATransferEncodingIsRefused() async throws {
        let (server, paths) = try Self.recordingServer()
        let request = "POST / HTTP/1.0\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
        let reply = await RawSocket.exchange(port: server.port, sending: Array(request.utf8))
        #expect(reply.hasPrefix("HTTP/1.1 400 ") && reply.contains("invalid_transfer_encoding"), "\(reply.prefix(90))")
        #expect(paths.withLock { $0 }.isEmpty)
        await server.stop(grace: .seconds(1))
    }

    /// `chunked` in any case, with spaces before it, and one `Content-Length`, still frame a body as they should.
    @Test func soundFramingIsServed() async throws {
        let (server, paths) = try Self.recordingServer()
        for fields in ["Transfer-Encoding: Chunked", "Transfer-Encoding:  chunked", "TRANSFER-ENCODING: CHUNKED"] {
            let request =
                "POST /chunked HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\(fields)\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
            let reply = await RawSocket.exchange(port: server.port, sending: Array(request.utf8))
            #expect(
                reply.hasPrefix("HTTP/1.1 200 ") && reply.hasSuffix("\r\n\r\nhello"), "\(fields): \(reply.prefix(90))")
        }
        let request = "POST /length HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello"
        let reply = await RawSocket.exchange(port: server.port, sending: Array(request.utf8))
        #expect(reply.hasPrefix("HTTP/1.1 200 ") && reply.hasSuffix("\r\n\r\nhello"), "\(reply.prefix(90))")
        #expect(paths.withLock { $0 } == ["/chunked", "/chunked", "/chunked", "/length"])
        await server.stop(grace: .seconds(1))
    }

    @Test(arguments: [
        ("Host: a\r\nHost: b", "invalid_host"),
        ("X-No-Host: 1", "invalid_host"),
        ("Host: a b/c", "invalid_host"),
        ("Host: user@a", "invalid_host"),
        ("Host: a\r\nX-Injected: b\rAuthorization: Bearer mine", "invalid_field_value"),
        ("Host: a\r\nX-Injected: b\u{0B}Authorization: Bearer mine", "invalid_field_value"),
        ("Host: a\r\nX-Injected: b\u{7F}", "invalid_field_value"),
    ])
    func aHeadWithAnInvalidHostOrValueIsRefused(fields: String, error: String) async throws {
        let (server, paths) = try Self.recordingServer()
        let request = "GET /first HTTP/1.1\r\n\(fields)\r\n\r\n"
        let reply = await RawSocket.exchange(port: server.port, sending: Array(request.utf8))
        #expect(reply.hasPrefix("HTTP/1.1 400 ") && reply.contains(#""error":"\#(error)""#), "\(reply.prefix(90))")
        #expect(paths.withLock { $0 }.isEmpty)
        await server.stop(grace: .seconds(1))
    }

    /// A host with a port, an IPv6 address, an empty `Host`, one with a space after it, a tab or UTF-8 in a
    /// value, and HTTP/1.0 without a `Host`, are served.
    @Test func soundHostsAndValuesAreServed() async throws {
        let (server, paths) = try Self.recordingServer()
        for fields in [
            "Host: 127.0.0.1:8080", "Host: [::1]:8080", "Host:", "Host: a\r\nX-A: b\tc", "Host: a\r\nX-A: bé",
            "Host: example.com. ",
        ] {
            let request = "GET /sound HTTP/1.1\r\nConnection: close\r\n\(fields)\r\n\r\n"
            let reply = await RawSocket.exchange(port: server.port, sending: Array(request.utf8))
            #expect(reply.hasPrefix("HTTP/1.1 200 "), "\(fields): \(reply.prefix(90))")
        }
        // HTTP/1.0 needs no Host.
        let old = await RawSocket.exchange(port: server.port, sending: Array("GET /sound HTTP/1.0\r\n\r\n".utf8))
        #expect(old.hasPrefix("HTTP/1.1 200 "), "\(old.prefix(90))")
        #expect(paths.withLock { $0 }.count == 7)
        await server.stop(grace: .seconds(1))
    }

    /// A space, a control character or a byte outside ASCII in the request target, which libmicrohttpd 0.9.75
    /// takes (the target is what lies between the first space and the last): raw UTF-8, and bytes that are not
    /// UTF-8 at all, which reading the target as text would have replaced.
    @Test(arguments: [
        Array("/a b".utf8), Array("/a\tb".utf8), Array("/a\u{0B}b".utf8), Array("/a\u{7F}b".utf8), Array("/café".utf8), Array("/a?q=é".utf8),
        Array("/a".utf8) + [0xF0, 0x9F, 0x98, 0xF0, 0x9F, 0x98], Array("/a".utf8) + [0xFF],
    ])
    func aTargetWithASpaceAControlCharacterOrNonASCIIIsRefused(target: [UInt8]) async throws {
        let (server, paths) = try Self.recordingServer()
        let request = Array("GET ".utf8) + target + Array(" HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        let reply = await RawSocket.exchange(port: server.port, sending: request)
        // Refused by the server, or (a line libmicrohttpd cannot parse) closed by libmicrohttpd: never handled.
        #expect(reply.isEmpty || reply.hasPrefix("HTTP/1.1 400 "), "\(reply.prefix(90))")
        #expect(reply.isEmpty || reply.contains("invalid_target"), "\(reply.prefix(200))")
        #expect(paths.withLock { $0 }.isEmpty)
        await server.stop(grace: .seconds(1))
    }
}
