#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
internal import CMicroHTTPD
public import Data
import Foundation

/// An HTTP/1.1 server over GNU libmicrohttpd, a well-kept C library: its epoll loop and thread pool
/// accept connections and parse requests within the ``MicroHTTPServerLimits``; each complete request is
/// handed to `handler` while its connection is suspended (no thread waits for the answer), and the answer
/// is written once the connection resumes. The handler starts on the daemon's thread, which it must not
/// hold up (it waits by awaiting, never by blocking), and goes on, after it first waits, on the thread that
/// resumed it or on the server's own threads, never on Swift's cooperative pool.
///
/// A request's target reaches the handler as the client sent it (path and query, still
/// percent-encoded), with its header fields and body; the handler's response is sent with the length
/// libmicrohttpd computes (`Content-Length`, `Connection` and `Transfer-Encoding` from the handler are
/// dropped). A streamed reply (``init(host:port:limits:replying:)``) is sent chunked as its body arrives:
/// while none is there the connection is suspended, and a client that goes away cancels the stream.
/// Nothing here logs a header value or a body.
public final class MicroHTTPServer: Sendable {
    /// What answers each request.
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse
    /// What answers each request with a body complete in memory or one that streams.
    public typealias ReplyHandler = @Sendable (HTTPRequest) async -> HTTPReply

    /// The bound port (the one the kernel chose when asked for port 0).
    public let port: UInt16
    /// The bound host, as given: `127.0.0.1`, `::1`, `0.0.0.0`.
    public let host: String
    private let daemon: DaemonHandle
    private let state: MicroHTTPServerState

    /// Starts serving on `host`:`port` (0 for a free port).
    /// - Throws: ``MicroHTTPServerError`` when the address is not an IP address or cannot be bound.
    public convenience init(
        host: String = "127.0.0.1", port: UInt16, limits: MicroHTTPServerLimits = .init(), handler: @escaping Handler
    ) throws(MicroHTTPServerError) {
        try self.init(host: host, port: port, limits: limits, replying: { request in .complete(await handler(request)) })
    }

    /// Starts serving on `host`:`port` (0 for a free port); `handler`'s streamed bodies are sent as they
    /// arrive (chunked), a suspended connection waiting for more holding no thread.
    /// - Throws: ``MicroHTTPServerError`` when the address is not an IP address or cannot be bound.
    public init(
        host: String = "127.0.0.1", port: UInt16, limits: MicroHTTPServerLimits = .init(),
        replying handler: @escaping ReplyHandler
    ) throws(MicroHTTPServerError) {
        var storage = sockaddr_storage()
        var flags = UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue)
        #if os(Linux)
            flags |= UInt32(MHD_USE_EPOLL.rawValue)
        #else
            flags |= UInt32(MHD_USE_POLL.rawValue)
        #endif
        guard let family = Self.fill(&storage, host: host, port: port) else {
            throw MicroHTTPServerError("\(host) is not an IP address to listen on")
        }
        if family == AF_INET6 { flags |= UInt32(MHD_USE_IPv6.rawValue) }
        let state = MicroHTTPServerState(handler: handler, limits: limits)
        // The daemon's callbacks reach the state through this pointer for as long as it runs: the server
        // holds the state, and stops the daemon before it lets go of it (in `stop` or `deinit`).
        let context = Unmanaged.passUnretained(state).toOpaque()
        let started = withUnsafePointer(to: &storage) { address in
            address.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                hardtack_mhd_start(
                    flags, address, MicroHTTPCallbacks.access, context, MicroHTTPCallbacks.uriLog, context,
                    MicroHTTPCallbacks.completed, context, max(limits.requestHeadBytes, 4096),
                    UInt32(max(limits.connections, 1)), UInt32(max(limits.idleSeconds, 1)), UInt32(max(limits.threads, 1)))
            }
        }
        guard let started else {
            throw MicroHTTPServerError("cannot listen on \(host):\(port) (\(String(cString: strerror(errno))))")
        }
        self.host = host
        self.state = state
        daemon = DaemonHandle(started)
        self.port = hardtack_mhd_port(started)
    }

    /// Requests in progress now (read, handled or written).
    public var requestsInFlight: Int { state.inFlight }

    /// Stops accepting connections, lets the requests in progress finish for up to `grace`, answers any
    /// still waiting after that with 503, cuts the answers still streaming (their clients see them end
    /// early), and stops. Requests that arrive meanwhile on open connections are answered 503 with
    /// `Connection: close`.
    public func stop(grace: Duration = .seconds(10)) async {
        state.beginDraining()
        daemon.quiesce()
        let deadline = ContinuousClock.now.advanced(by: grace)
        while state.inFlight > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        state.abandonWaiting()
        state.abortStreams()
        // The abandoned answers need the loop a moment to be written before it stops.
        let written = ContinuousClock.now.advanced(by: .milliseconds(500))
        while state.inFlight > 0, ContinuousClock.now < written {
            try? await Task.sleep(for: .milliseconds(10))
        }
        daemon.stop()
    }

    deinit {
        // A server let go of without `stop`: nothing waits; what is still being handled is answered 503.
        state.beginDraining()
        state.abandonWaiting()
        state.abortStreams()
        daemon.stop()
    }

    /// Fills `storage` with `host`:`port`; the address family, or `nil` when `host` is no IP address.
    private static func fill(_ storage: inout sockaddr_storage, host: String, port: UInt16) -> Int32? {
        withUnsafeMutableBytes(of: &storage) { raw -> Int32? in
            let v4 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
            if inet_pton(AF_INET, host, &v4.pointee.sin_addr) == 1 {
                v4.pointee.sin_family = sa_family_t(AF_INET)
                v4.pointee.sin_port = port.bigEndian
                return AF_INET
            }
            let v6 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
            if inet_pton(AF_INET6, host, &v6.pointee.sin6_addr) == 1 {
                v6.pointee.sin6_family = sa_family_t(AF_INET6)
                v6.pointee.sin6_port = port.bigEndian
                return AF_INET6
            }
            return nil
        }
    }
}

/// The daemon pointer, shared by the server's methods, stopped once.
///
/// Safety (`@unchecked Sendable`): libmicrohttpd's daemon is made for use from several threads; the
/// server calls only `MHD_quiesce_daemon` and `MHD_stop_daemon` on it, and its two fields are read and
/// written under `lock` only, so each is called at most once, and never after the daemon stopped.
private final class DaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    private let lock = NSLock()
    private var stopped = false
    private var listener: Int32?

    init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Stops accepting connections, the first time only. The listening socket is closed only once the
    /// daemon has stopped: its threads may still be using it until then.
    func quiesce() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped, listener == nil else { return }
        listener = MHD_quiesce_daemon(pointer)
    }

    /// Stops the daemon and waits for its threads, the first time only; then closes the listening socket
    /// a quiesce handed over.
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        MHD_stop_daemon(pointer)
        if let listener, listener >= 0 { close(listener) }
    }
}
