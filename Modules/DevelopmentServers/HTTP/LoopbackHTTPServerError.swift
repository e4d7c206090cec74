/// Why a ``LoopbackHTTPServer`` could not start.
public enum LoopbackHTTPServerError: Error, Sendable, Equatable {
    /// A socket or pipe could not be created.
    case socket(errno: Int32)
    /// 127.0.0.1:`port` could not be bound, usually because it is in use.
    case bind(port: UInt16, errno: Int32)
    /// The bound socket could not listen.
    case listen(errno: Int32)
}

extension LoopbackHTTPServerError: CustomStringConvertible {
    /// One line saying what failed and why.
    public var description: String {
        switch self {
        case .socket(let code): "cannot create a socket (\(POSIXSocket.message(code)))"
        case .bind(let port, let code): "cannot listen on 127.0.0.1:\(port) (\(POSIXSocket.message(code)))"
        case .listen(let code): "cannot listen (\(POSIXSocket.message(code)))"
        }
    }
}
