#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
internal import CMicroHTTPD
import Data
import Foundation

extension MicroHTTPResponder {
    /// The least of a connection's memory left in which libmicrohttpd is given a refusal to write (its head
    /// is some 160 bytes); with less, ``writeDirectly(_:to:)`` sends it.
    static let refusalHeadRoom = 512

    /// Writes `response`, one of the server's own refusals, straight to `connection`'s socket, and has
    /// libmicrohttpd close the connection (the result to return from the access callback): for a request
    /// that left too little of the connection's memory for libmicrohttpd to write even that answer's head,
    /// which it would otherwise close without a word. Called from the access callback on the request's first
    /// call, on the daemon's loop: nothing of this request's answer is written yet, and libmicrohttpd reads
    /// a request only once the answer before it on the connection is sent, so these bytes are the next the
    /// client reads. A socket whose buffer will not take the whole answer at once (it holds some 300 bytes;
    /// a new request's buffer is empty) gets what it takes.
    static func writeDirectly(_ response: HTTPResponse, to connection: OpaquePointer) -> MHD_Result {
        let socket = hardtack_mhd_connection_socket(connection)
        guard socket >= 0 else { return MHD_Result.NO }
        let status = code(response.status)
        let reason = MHD_get_reason_phrase_for(status).map { String(cString: $0) } ?? ""
        var head = "HTTP/1.1 \(status) \(reason)\r\nDate: \(httpDate())\r\n"
        for field in response.headers where !field.name.caseInsensitiveEquals("connection") {
            head += "\(field.name): \(field.value)\r\n"
        }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        let bytes = Data(head.utf8) + response.body
        _ = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return MHD_Result.NO
    }

    /// Now as an HTTP date (RFC 9110 §5.6.7), which an origin server with a clock sends with a 4xx answer.
    static func httpDate() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday) % 7]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon) % 12]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
