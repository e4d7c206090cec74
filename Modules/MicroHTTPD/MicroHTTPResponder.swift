internal import CMicroHTTPD
import Data
import Foundation

/// Reads a request's header fields from libmicrohttpd and writes an ``HTTPResponse`` to it.
enum MicroHTTPResponder {
    /// Fields libmicrohttpd writes itself from the response it is given, or that only it may decide.
    /// Lowercase; a list, since a field's name is compared without lowercasing it first.
    private static let framing = ["content-length", "transfer-encoding", "connection", "keep-alive", "upgrade"]

    /// Queues `response` on `connection`. A field whose name or value could split the response (a CR, LF
    /// or NUL, or a name that is not a token) is left out; `Connection: close` is kept, so that a handler
    /// can ask for the connection to close after the answer. The answer to a `HEAD` request (`head`) keeps
    /// the length its handler declares (``declaredLength(of:)``); libmicrohttpd sends no body with it.
    static func queue(_ response: HTTPResponse, on connection: OpaquePointer, head: Bool) -> MHD_Result {
        let made: OpaquePointer?
        if head, let length = declaredLength(of: response) {
            // Of that size, with a reader libmicrohttpd never calls for a `HEAD` (it takes the body as sent).
            made = MHD_create_response_from_callback(
                UInt64(length), 1024, { _, _, _, _ in hardtack_mhd_end_with_error }, nil, nil)
        } else {
            made = response.body.withUnsafeBytes { body in
                MHD_create_response_from_buffer(
                    body.count, UnsafeMutableRawPointer(mutating: body.baseAddress),
                    MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
            }
        }
        guard let made else { return MHD_Result.NO }
        defer { MHD_destroy_response(made) }
        add(response.headers, to: made)
        return MHD_queue_response(connection, code(response.status), made)
    }

    /// The length of the body an answer to `HEAD` would have had as the answer to `GET` (RFC 9110 §9.3.2: a
    /// `HEAD` gets the fields a `GET` would): its one `Content-Length`, a number, when it has no body of its
    /// own (a proxy passing on its upstream's answer to a `HEAD`) and a status that has a body. Else `nil`,
    /// and the length is its body's, as for any answer.
    static func declaredLength(of response: HTTPResponse) -> Int? {
        guard response.body.isEmpty, (200...599).contains(response.status), response.status != 204,
            response.status != 304
        else { return nil }
        return response.headers.contentLength
    }

    /// Adds `headers` to `made`, leaving out any field that could split the response or that only
    /// libmicrohttpd may write (see ``queue(_:on:)``).
    static func add(_ headers: HTTPHeaders, to made: OpaquePointer) {
        for field in headers where isKept(field) {
            // Through `withCString`, which puts a short name or value on the stack: passed as an argument, a
            // short string is copied to the heap first (two allocations a field, for names like `Date`).
            _ = field.name.withCString { name in
                field.value.withCString { value in MHD_add_response_header(made, name, value) }
            }
        }
    }

    /// Whether an answer's `field` is written: not one that could split the response, nor one only libmicrohttpd
    /// may write (`Connection: close` is kept).
    static func isKept(_ field: (name: String, value: String)) -> Bool {
        guard isToken(field.name), isSafeValue(field.value) else { return false }
        return !framing.contains(where: { field.name.caseInsensitiveEquals($0) })
            || (field.name.caseInsensitiveEquals("connection") && field.value.caseInsensitiveEquals("close"))
    }

    /// The status code to write: `status` when it is one (100 to 599), else 500.
    static func code(_ status: Int) -> UInt32 {
        UInt32((100...599).contains(status) ? status : 500)
    }

    /// The request's header fields, in the order received.
    static func headers(of connection: OpaquePointer) -> HTTPHeaders {
        final class Collector {
            var headers = HTTPHeaders()
        }
        let collector = Collector()
        collector.headers.reserveCapacity(8)
        withExtendedLifetime(collector) {
            _ = MHD_get_connection_values(connection, MHD_ValueKind.HEADER_KIND, { cls, _, key, value in
                guard let cls, let key else { return MHD_Result.YES }
                let collector = Unmanaged<Collector>.fromOpaque(cls).takeUnretainedValue()
                collector.headers.add(String(cString: key), value.map { String(cString: $0) } ?? "")
                return MHD_Result.YES
            }, Unmanaged.passUnretained(collector).toOpaque())
        }
        return collector.headers
    }

    /// The size of the request's head as sent, near enough: its request line (method, target, version)
    /// and each field's name, value and separators.
    static func headBytes(of connection: OpaquePointer, method: UnsafePointer<CChar>, target: String) -> Int {
        var total = strlen(method) + target.utf8.count + 12
        withUnsafeMutablePointer(to: &total) { total in
            _ = MHD_get_connection_values(connection, MHD_ValueKind.HEADER_KIND, { cls, _, key, value in
                guard let cls else { return MHD_Result.YES }
                let total = cls.assumingMemoryBound(to: Int.self)
                total.pointee += (key.map { strlen($0) } ?? 0) + (value.map { strlen($0) } ?? 0) + 4
                return MHD_Result.YES
            }, UnsafeMutableRawPointer(total))
        }
        return total
    }

    /// The request's `Content-Length`, when it has one that is a number.
    static func contentLength(of connection: OpaquePointer) -> Int? {
        MHD_lookup_connection_value(connection, MHD_ValueKind.HEADER_KIND, "Content-Length").flatMap { Int(String(cString: $0)) }
    }

    /// An answer the server gives itself, never the handler: `{"error":…,"message":…}` with `status`, and
    /// the connection closed after it. `error` and `message` are the server's own texts, with nothing to
    /// escape.
    static func refusal(_ status: Int, _ error: String, _ message: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: HTTPHeaders([("Content-Type", "application/json"), ("Connection", "close")]),
            body: Data(#"{"error":"\#(error)","message":"\#(message)"}"#.utf8))
    }

    /// The answer to a request whose method is not an HTTP token (`G@T`, a control character). (Computed: a
    /// global holding `Data` reads as a leak to LeakSanitizer, which does not see through its packed storage.)
    static var invalidMethod: HTTPResponse {
        refusal(400, "invalid_method", "the request's method is not an HTTP token")
    }

    /// Whether a request's method, as the access callback gets it, is `HEAD` (whose answer has no body).
    static func isHead(_ method: UnsafePointer<CChar>?) -> Bool {
        method.map { strcmp($0, "HEAD") == 0 } ?? false
    }

    /// The answer to a request target (path and query) over `limit` bytes.
    static func targetTooLong(_ limit: Int) -> HTTPResponse {
        refusal(414, "request_target_too_long", "the request target is over \(limit) bytes")
    }

    /// The answer to a head over `limit` bytes.
    static func headTooLarge(_ limit: Int) -> HTTPResponse {
        refusal(431, "request_head_too_large", "the request head is over \(limit) bytes")
    }

    /// The answer to a head whose fields and cookies leave too little of its connection's memory for an answer.
    static var headTooCrowded: HTTPResponse {
        refusal(431, "request_head_too_large", "the request head has too many cookies and fields to be answered: send fewer")
    }

    /// The answer to a body over `limit` bytes.
    static func tooLarge(_ limit: Int) -> HTTPResponse {
        refusal(413, "request_too_large", "the request body is over \(limit) bytes")
    }

    /// Whether `name` is an HTTP token (RFC 9110 §5.6.2).
    private static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(isTokenByte)
    }

    /// Whether `byte` may be part of an HTTP token: a letter, a digit or one of ``!#$%&'*+-.^_`|~``.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }

    /// Whether `value` holds no CR, LF or NUL, which would end the field and start another.
    private static func isSafeValue(_ value: String) -> Bool {
        !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }
}
