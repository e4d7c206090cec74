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
    /// Seconds a client has to send a request's whole head, from its connection's start or the end of the
    /// request before it on the connection: one that trickles it is dropped.
    public var headSeconds: Int
    /// The event loops, a thread each, that accept connections, read and write them and run their
    /// handlers and the upstream calls those make (one per core serves the most).
    public var threads: Int

    /// The memory libmicrohttpd gives each connection: twice the head, and 4 KiB. Its 0.9.75 copies a
    /// `Cookie` field into the same memory as the head and takes 64 bytes of it for each field and cookie
    /// (and would for each query argument, which the server has it skip), and answers what does not fit
    /// itself, malformed or not at all: with room for a copy as long as the head, a head up to ``requestHeadBytes`` with a usual count of fields and cookies is
    /// read whole and one over it gets the server's own 431 (docs/gateway.md, "Bounds and faults"). It is
    /// zeroed for each request: the default head, 8 KiB, keeps it at 20 KiB; 16 KiB heads would make it 36,
    /// which cost the gateway several µs a call.
    var connectionMemoryBytes: Int { max(2 * requestHeadBytes + 4096, 4096) }

    /// How much of a body over ``requestBodyBytes`` is read and dropped so that the client reads the 413: 16
    /// times the limit, 16 MiB at least. A body declared longer is refused at once, its connection closed.
    var requestBodyDiscardBytes: Int { max(16 << 20, 16 * requestBodyBytes) }

    /// Creates limits; the defaults suit a gateway in front of a single-page app.
    public init(
        requestHeadBytes: Int = 8 * 1024, requestBodyBytes: Int = 1 << 20, connections: Int = 1024,
        idleSeconds: Int = 30, headSeconds: Int = 30, threads: Int = 2
    ) {
        self.headSeconds = headSeconds
        self.requestHeadBytes = requestHeadBytes
        self.requestBodyBytes = requestBodyBytes
        self.connections = connections
        self.idleSeconds = idleSeconds
        self.threads = threads
    }
}
