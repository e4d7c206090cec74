/// What the HTTP server in front of a gateway tells of its client connections, for `/metrics`.
public struct GatewayConnections: Sendable {
    /// Connections open now.
    public var open: Int
    /// Times an event loop's open connections reached its share of the connection limit (while a loop is
    /// full, the connections the kernel gives it wait in its queue).
    public var timesFull: Int

    /// Creates the figures.
    public init(open: Int, timesFull: Int) {
        self.open = open
        self.timesFull = timesFull
    }
}
