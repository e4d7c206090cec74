/// An HTTP response whose body streams: its status and header fields known, its body still arriving.
public struct HTTPStreamedResponse: Sendable {
    /// The status code, such as 200 or 401.
    public var status: Int
    /// Header fields.
    public var headers: HTTPHeaders
    /// The body, as it arrives.
    public var body: HTTPBodyStream

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: HTTPBodyStream) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

extension HTTPStreamedResponse: CustomStringConvertible {
    /// The status only: headers and body may carry tokens.
    public var description: String { "HTTP \(status) (streamed)" }
}
