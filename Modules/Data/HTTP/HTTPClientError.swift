/// Why no HTTP response arrived. None of these carries a header value or a body.
public enum HTTPClientError: Error, Sendable, Equatable {
    /// The server could not be reached (refused, unreachable, DNS failure).
    case cannotConnect(String)
    /// No complete response within the timeout.
    case timedOut
    /// The response body exceeded the client's size limit.
    case responseTooLarge(limit: Int)
    /// The connection failed midway or the response was not valid HTTP.
    case transport(String)
}

extension HTTPClientError: CustomStringConvertible {
    /// One line saying what happened.
    public var description: String {
        switch self {
        case .cannotConnect(let reason): "cannot reach the server (\(reason)); check the server URL and your network"
        case .timedOut: "the server did not answer in time; try again"
        case .responseTooLarge(let limit): "the server's response is larger than \(limit) bytes and was refused"
        case .transport(let reason): "the connection to the server failed (\(reason)); try again"
        }
    }
}
