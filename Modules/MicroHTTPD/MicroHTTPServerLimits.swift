/// The bounds a ``MicroHTTPServer`` holds every client to, so that no request can exhaust it.
public struct MicroHTTPServerLimits: Sendable {
    /// The largest request head (request line and header fields), in bytes: a larger one is answered 431.
    public var requestHeadBytes: Int
    /// The largest request body, in bytes: a larger one is answered 413 and the connection closed.
    public var requestBodyBytes: Int
    /// How many connections are served at once, in all (each loop serves its share, and the shares add up
    /// to it); more wait in the kernel's queue of the loop they were given to.
    public var connections: Int
    /// Seconds a connection may stay idle (a slow client sending nothing) before it is dropped.
    public var idleSeconds: Int
    /// Seconds a client has to send a request's whole head, from its connection's start or the end of the
    /// request before it on the connection: one that trickles it is dropped.
    public var headSeconds: Int
    /// The room kept for an answer's head: libmicrohttpd writes it into the memory that still holds its
    /// request's head, and closes a connection whose answer head does not fit without a word, so a request
    /// whose head, cookie copy and records would leave less is refused 431 as soon as its head is read (a head
    /// within ``requestHeadBytes`` with up to 64 fields and cookies always leaves it). An answer's head within
    /// it is always sent.
    public var answerHeadBytes: Int
    /// The event loops, a thread each, that accept connections, read and write them and run their
    /// handlers and the upstream calls those make (one per core serves the most); never more than
    /// ``connections``.
    public var threads: Int

    /// The event loops a server with these limits runs: ``threads``, but never more than ``connections``
    /// (each serves its share of them).
    public var loops: Int { min(max(threads, 1), max(connections, 1)) }

    /// The memory libmicrohttpd gives each connection: room for a head of ``requestHeadBytes`` and a copy as
    /// long (its 0.9.75 copies a `Cookie` field into the same memory), for 64 fields and cookies at 64 bytes a
    /// record, and for an answer's head of ``answerHeadBytes`` (and 16 bytes of slack); about 24 KiB with the
    /// defaults. It is zeroed for each request, and a larger one costs: 36 KiB (for 16 KiB heads) cost the
    /// gateway several µs a call.
    var connectionMemoryBytes: Int { max(2 * requestHeadBytes, 0) + 64 * 64 + max(answerHeadBytes, 256) + 16 }

    /// How much of a body over ``requestBodyBytes`` is read and dropped so that the client reads the 413: 16
    /// times the limit, 16 MiB at least. A body declared longer is refused at once, its connection closed.
    var requestBodyDiscardBytes: Int { max(16 << 20, 16 * requestBodyBytes) }

    /// Creates limits; the defaults suit a gateway in front of a single-page app.
    public init(
        requestHeadBytes: Int = 8 * 1024, requestBodyBytes: Int = 1 << 20, connections: Int = 1024,
        idleSeconds: Int = 30, headSeconds: Int = 30, answerHeadBytes: Int = 4 * 1024 + 256, threads: Int = 2
    ) {
        self.answerHeadBytes = answerHeadBytes
        self.headSeconds = headSeconds
        self.requestHeadBytes = requestHeadBytes
        self.requestBodyBytes = requestBodyBytes
        self.connections = connections
        self.idleSeconds = idleSeconds
        self.threads = threads
    }
}
