public import Foundation

/// An HTTP request relative to the server's base URL. Header values may hold secrets: nothing prints
/// them (``description`` shows the method and path only).
public struct HTTPRequest: Sendable {
    /// The method, such as `POST`.
    public var method: String
    /// The path below the base URL, starting with `/`, such as `/oauth/token`.
    public var path: String
    /// Header fields; names compare case-insensitively on the wire.
    public var headers: HTTPHeaders
    /// The body bytes (empty for none).
    public var body: Data
    /// When the server that received the request had read it whole; `nil` for a request to send. A
    /// commit that ended before this was seen by anything read after it.
    public var received: ContinuousClock.Instant?

    /// Creates a request.
    public init(
        method: String, path: String, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data(),
        received: ContinuousClock.Instant? = nil
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.received = received
    }
}

extension HTTPRequest {
    /// Whether `byte` may stand as written in a request's ``path`` (RFC 3986: unreserved, reserved and `%`),
    /// which no space, control character, quote, angle bracket, backslash or byte of non-ASCII text is. Inlinable:
    /// the HTTP client checks every call's path with it.
    @inlinable
    public static func isURLByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "-._~:/?#[]@!$&'()*+,;=%".utf8.contains(byte)
        }
    }
}

extension HTTPRequest: CustomStringConvertible {
    /// The method and path only: headers and body may carry credentials.
    public var description: String { "\(method) \(path)" }
}
