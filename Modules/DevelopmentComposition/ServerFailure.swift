/// A failure the demo's embedded server can simulate.
public enum ServerFailure: Sendable {
    /// Normal service.
    case none
    /// Every request gets HTTP 503.
    case serverError
    /// Every request gets 200 with an HTML page.
    case garbage
    /// The server cannot be reached.
    case down
}
