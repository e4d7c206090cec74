/// Why the loopback redirect could not be received.
public enum RedirectListenerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The listener could not start on 127.0.0.1; the server's reason.
    case listen(String)
    /// No redirect came before the deadline.
    case timedOut(seconds: Int)
    /// The wait was cancelled, or the listener closed.
    case cancelled

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .listen(let reason): "the loopback listener could not start (\(reason))"
        case .timedOut(let seconds): "no answer came from the browser within \(seconds) s"
        case .cancelled: "the sign-in was cancelled"
        }
    }
}
