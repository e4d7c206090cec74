/// The bounds a ``MicroHTTPServer`` holds every client to, so that no request can exhaust it.
public struct MicroHTTPServerLimits: Sendable {
    /// The largest request head (request line and header fields), in bytes: a larger one is answered 431.
    public var requestHeadBytes: Int
    /// The largest request body, in bytes: a larger one is answered 413 and the connection closed.
    public var requestBodyBytes: Int
    /// How many connections are served at once (each loop serves its share); more wait in the kernel's queue.
    public var connections: Int
    /// Seconds a connection may stay idle (a slow client sending nothing) before it is dropped.
    public var idleSeconds: Int
    /// The event loops, a thread each, that accept connections, read and write them and run their
    /// handlers and the upstream calls those make (one per core serves the most).
    public var threads: Int

    /// Creates limits; the defaults suit a gateway in front of a single-page app.
    public init(
        requestHeadBytes: Int = 16 * 1024, requestBodyBytes: Int = 1 << 20, connections: Int = 1024,
        idleSeconds: Int = 30, threads: Int = 2
    ) {
        self.requestHeadBytes = requestHeadBytes
        self.requestBodyBytes = requestBodyBytes
        self.connections = connections
        self.idleSeconds = idleSeconds
        self.threads = threads
    }
}
