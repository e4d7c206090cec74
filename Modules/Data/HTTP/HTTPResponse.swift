public import Foundation

/// An HTTP response: status, headers and a body already bounded by the client's size limit.
public struct HTTPResponse: Sendable {
    /// The status code, such as 200 or 401.
    public var status: Int
    /// Header fields.
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

extension HTTPResponse: CustomStringConvertible {
    /// The status and body size only: headers and body may carry tokens.
    public var description: String { "HTTP \(status) (\(body.count) bytes)" }
}
