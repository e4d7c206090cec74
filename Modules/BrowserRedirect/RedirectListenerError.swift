/// Why the loopback redirect could not be received.
public enum RedirectListenerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A socket call failed; the call and `errno`.
    case socket(call: String, errno: Int32)
    /// No redirect came before the deadline.
    case timedOut(seconds: Int)
    /// The wait was cancelled.
    case cancelled

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .socket(let call, let code): "the loopback listener failed (\(call), errno \(code))"
        case .timedOut(let seconds): "no answer came from the browser within \(seconds) s"
        case .cancelled: "the sign-in was cancelled"
        }
    }
}
