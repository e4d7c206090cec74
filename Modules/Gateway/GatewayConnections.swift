/// What the HTTP server in front of a gateway tells of its browser connections, for `/metrics`.
public struct GatewayConnections: Sendable {
    /// Connections open now.
    public var open: Int
    /// Times an event loop reached its share of the connection limit (the connections the kernel then gave
    /// it waited).
    public var timesFull: Int

    /// Creates the figures.
    public init(open: Int, timesFull: Int) {
        self.open = open
        self.timesFull = timesFull
    }
}
