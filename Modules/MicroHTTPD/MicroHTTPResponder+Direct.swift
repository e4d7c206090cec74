internal import CMicroHTTPD
import Data
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension MicroHTTPResponder {
    /// The least of a connection's memory left in which libmicrohttpd is given a refusal to write (its head
    /// is some 160 bytes); with less, ``writeDirectly(_:to:head:)`` sends it.
    static let refusalHeadRoom = 512

    /// What libmicrohttpd adds to an answer's head besides its fields, at most: the status line, `Date`,
    /// `Connection`, `Content-Length` or `Transfer-Encoding`, and the blank line.
    private static let framingBytes = 160

    /// The most bytes `reply`'s head takes when libmicrohttpd writes it: its fields as ``add(_:to:)`` keeps
    /// them, and the framing.
    static func headBytes(of reply: HTTPReply) -> Int {
        let headers: HTTPHeaders
        switch reply {
        case .complete(let response): headers = response.headers
        case .streamed(let response): headers = response.headers
        }
        var total = framingBytes
        for field in headers { total += field.name.utf8.count + field.value.utf8.count + 4 }
        return total
    }

    /// The answer in place of one whose head would not fit beside its request's in the connection's memory.
    static var answerHeadTooLarge: HTTPResponse {
        refusal(500, "answer_head_too_large", "the answer's head is too large to be sent beside this request's head")
    }

    /// The answer to a head with a field folded over lines (obs-fold), which RFC 9112 §5.2 lets a server refuse.
    static var foldedField: HTTPResponse {
        refusal(400, "folded_header_field", "a header field is folded over lines: send each on one line")
    }

    /// The answer to a chunked body that ends with trailer fields.
    static var trailersRefused: HTTPResponse {
        refusal(
            400, "request_trailers_refused",
            "the request's body ends with trailer fields, which this server does not take")
    }

    /// Writes `response`, one of the server's own refusals, straight to `connection`'s socket, and has
    /// libmicrohttpd close the connection (the result to return from the access callback): for a request
    /// that left too little of the connection's memory for libmicrohttpd to write even that answer's head,
    /// which it would otherwise close without a word. Called from the access callback before the request is
    /// handed over, on the daemon's loop: nothing of this request's answer is written yet (but a 100 Continue), and libmicrohttpd reads
    /// a request only once the answer before it on the connection is sent, so these bytes are the next the
    /// client reads. A socket whose buffer will not take the whole answer at once (it holds some 300 bytes;
    /// a new request's buffer is empty) gets what it takes. The answer to a `HEAD` request (`head`) has no body.
    static func writeDirectly(_ response: HTTPResponse, to connection: OpaquePointer, head isHead: Bool) -> MHD_Result {
        let socket = hardtack_mhd_connection_socket(connection)
        guard socket >= 0 else { return MHD_Result.NO }
        let (head, body) = wire(response, head: isHead)
        let bytes = Data(head.utf8) + body
        _ = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return MHD_Result.NO
    }

    /// The largest answer the server writes to a socket itself in place of libmicrohttpd
    /// (``writeWhole(_:to:head:)``), as nginx buffers a proxied answer up to 64 KiB. (A new connection over
    /// Ethernet starts with a send buffer of some 87 KB, so there about 40 KB get the room asked.)
    static let wholeAnswerBytes = 64 << 10

    /// Writes `response` whole, with `Connection: close`, to `connection`'s socket, which libmicrohttpd is about
    /// to close without having written the answer (its completion callback): `true` when it was sent. Nothing is
    /// sent (`false`) for an answer over ``wholeAnswerBytes``, or when the socket's send queue has less than
    /// twice its size left as the kernel counts it (each packet's overhead included): the loop never waits on a
    /// client. Should the kernel still take only part of it, the client reads an answer short of its
    /// `Content-Length`, which it can tell, and the connection's end. Its fields are filtered as
    /// ``add(_:to:)`` filters them.
    static func writeWhole(_ response: HTTPResponse, to connection: OpaquePointer, head isHead: Bool) -> Bool {
        let socket = hardtack_mhd_connection_socket(connection)
        guard socket >= 0 else { return false }
        let (head, body) = wire(response, head: isHead)
        let size = head.utf8.count + body.count
        guard size <= wholeAnswerBytes, hardtack_socket_send_room(socket) >= 2 * size else { return false }
        let bytes = Data(head.utf8) + body
        let sent = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        return sent == bytes.count
    }

    /// `response` as written to the socket by the server itself: the head (the status line, a `Date` unless it
    /// has one, its fields as ``add(_:to:)`` keeps them and one `Date` at most, `Content-Length` (for `HEAD`,
    /// the one declared, ``declaredLength(of:)``), `Connection: close`), and the body (none for `HEAD`, nor with
    /// a 1xx, 204 or 304).
    private static func wire(_ response: HTTPResponse, head isHead: Bool) -> (head: String, body: Data) {
        let status = code(response.status)
        let reason = MHD_get_reason_phrase_for(status).map { String(cString: $0) } ?? ""
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        // One Date: the answer's own (an upstream's, passed on; the last, as libmicrohttpd keeps), else the server's.
        let kept = response.headers.filter { isKept($0) && !$0.name.caseInsensitiveEquals("connection") }
        let date = kept.lastIndex { $0.name.caseInsensitiveEquals("date") }
        if date == nil { head += "Date: \(httpDate())\r\n" }
        for (index, field) in kept.enumerated() where index == date || !field.name.caseInsensitiveEquals("date") {
            head += "\(field.name): \(field.value)\r\n"
        }
        // No body, nor its length, with a status that has none (RFC 9110 §8.6).
        let bodiless = status < 200 || status == 204 || status == 304
        let length = isHead ? declaredLength(of: response) ?? response.body.count : response.body.count
        if !bodiless { head += "Content-Length: \(length)\r\n" }
        head += "Connection: close\r\n\r\n"
        return (head, isHead || bodiless ? Data() : response.body)
    }

    /// Now as an HTTP date (RFC 9110 §5.6.7), which an origin server with a clock sends with a 4xx answer.
    static func httpDate() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(days[Int(parts.tm_wday) % 7]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon) % 12]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
