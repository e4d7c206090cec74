import Data
import Foundation

/// Writes an ``HTTPResponse`` as HTTP/1.1 bytes for the loopback server, always with
/// `Content-Length` and `Connection: close`.
enum HTTPResponseEncoder {
    /// The wire form of `response`; the body is left out for a `HEAD` request. Fields whose name is not
    /// a token or whose value holds CR, LF or NUL are dropped, so a handler cannot split the response.
    static func encode(_ response: HTTPResponse, includeBody: Bool = true) -> [UInt8] {
        // A 1xx cannot be a final response; anything outside the status range is the handler's bug.
        let status = (200...599).contains(response.status) ? response.status : 500
        var head = "HTTP/1.1 \(status) \(reason(status))\r\n"
        let managed = ["content-length", "connection", "transfer-encoding"]
        for field in response.headers {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(HTTPRequestHead.isTokenByte),
                !managed.contains(field.name.lowercased()),
                !field.value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 })
            else { continue }
            head += "\(field.name): \(field.value)\r\n"
        }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        var bytes = Array(head.utf8)
        if includeBody { bytes.append(contentsOf: response.body) }
        return bytes
    }

    /// A short plain-text response for a request refused before the handler.
    static func encode(rejection: HTTPWireRejection) -> [UInt8] {
        let text = "\(rejection.status) \(reason(rejection.status))\n"
        return encode(
            HTTPResponse(
                status: rejection.status, headers: HTTPHeaders([("Content-Type", "text/plain; charset=utf-8")]),
                body: Data(text.utf8)))
    }

    /// The reason phrase for `status` (informative only; clients ignore it).
    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}
