/// A failure the embedded auth server can be told to simulate, so clients' error paths are testable.
public enum SimulatedFailure: Sendable, Equatable {
    /// Normal service.
    case none
    /// Every request gets 503 Service Unavailable.
    case serverError
    /// Every request gets 200 with an HTML body, as from a captive portal or a misrouted proxy.
    case garbage
    /// The server is unreachable: ``EmbeddedAuthServerTransport`` throws
    /// ``HTTPClientError/cannotConnect(_:)``. A socket server that has already accepted the connection
    /// cannot refuse it, so ``EmbeddedAuthServer/handle(_:)`` answers 503 instead.
    case down
}
