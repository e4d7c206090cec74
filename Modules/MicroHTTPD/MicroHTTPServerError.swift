/// Why a ``MicroHTTPServer`` could not start.
public struct MicroHTTPServerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in one line.
    public let description: String

    /// Creates an error.
    init(_ description: String) {
        self.description = description
    }
}
