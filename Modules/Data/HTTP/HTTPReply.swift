/// What a server sends back for one request: a response complete in memory, or one whose body streams
/// as it arrives.
public enum HTTPReply: Sendable {
    /// A body complete in memory, sent with its length.
    case complete(HTTPResponse)
    /// A body sent as it arrives.
    case streamed(HTTPStreamedResponse)

    /// The status code.
    public var status: Int {
        switch self {
        case .complete(let response): response.status
        case .streamed(let response): response.status
        }
    }
}
