#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
internal import CMicroHTTPD
public import Data
import Epoll
import Foundation

/// An HTTP/1.1 server over GNU libmicrohttpd, a well-kept C library, on event loops of its own
/// (``MicroHTTPServerLimits/threads`` of them, each an ``EpollLoop`` driving a daemon that accepts on a
/// listening socket of its own, bound with `SO_REUSEPORT`, as nginx's workers do): libmicrohttpd accepts
/// connections and parses requests within the ``MicroHTTPServerLimits``; each complete request is handed
/// to `handler` while its connection is suspended (no thread waits for the answer), and the answer is
/// written once the connection resumes. The handler runs as a task on the loop that read its request,
/// start to end: what it awaits from libcurl on the same loop (``EpollLoop/current``) comes back to that
/// thread without waking another. So it must not hold the loop up: it waits by awaiting, never by
/// blocking, and hands blocking work (the store's calls) to threads of its own.
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
    /// Told of each request the server answers itself, never handing it over: its method, its target as
    /// sent and the status (400 for a method that is no token, a folded field or a body's trailer fields, 413,
    /// 414, 431, 503 while stopping, 500 in place of an answer whose head would not fit beside its request's).
    public typealias RefusalObserver = @Sendable (_ method: String, _ target: String, _ status: Int) -> Void

    /// The bound port (the one the kernel chose when asked for port 0).
    public let port: UInt16
    /// The bound host, as given: `127.0.0.1`, `::1`, `0.0.0.0`.
    public let host: String
    private let daemons: [MicroHTTPDaemon]
    private let state: MicroHTTPServerState

    /// Starts serving on `host`:`port` (0 for a free port).
    /// - Throws: ``MicroHTTPServerError`` when the address is not an IP address or cannot be bound.
    public convenience init(
        host: String = "127.0.0.1", port: UInt16, limits: MicroHTTPServerLimits = .init(), handler: @escaping Handler
    ) throws(MicroHTTPServerError) {
        try self.init(host: host, port: port, limits: limits, replying: { request in .complete(await handler(request)) })
    }

    /// Starts serving on `host`:`port` (0 for a free port); `handler`'s streamed bodies are sent as they
    /// arrive (chunked), a suspended connection waiting for more holding no thread. The server counts its
    /// connections in `connections` (one made beforehand lets what the handler needs read them).
    /// - Throws: ``MicroHTTPServerError`` when the address is not an IP address or cannot be bound.
    public init(
        host: String = "127.0.0.1", port: UInt16, limits: MicroHTTPServerLimits = .init(),
        replying handler: @escaping ReplyHandler, refused: RefusalObserver? = nil,
        connections: MicroHTTPConnectionTally = .init()
    ) throws(MicroHTTPServerError) {
        let count = limits.loops
        let (sockets, bound) = try ListeningSockets.open(host: host, port: port, count: count)
        var flags = UInt32(MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue)
        if host.contains(":") { flags |= UInt32(MHD_USE_IPv6.rawValue) }
        let state = MicroHTTPServerState(handler: handler, limits: limits, refused: refused, connections: connections)
        // The connection limit is the whole server's: each loop serves its share, the first ones one more
        // when it does not divide evenly, so that the shares add up to the limit exactly.
        let limit = max(limits.connections, 1)
        var daemons: [MicroHTTPDaemon] = []
        for (index, socket) in sockets.enumerated() {
            let loop = EpollLoop(name: "hardtack.http.\(index)", linger: .seconds(1))
            let daemon = MicroHTTPDaemon(loop: loop, state: state, listener: socket)
            do throws(MicroHTTPServerError) {
                let share = limit / count + (index < limit % count ? 1 : 0)
                try daemon.start(flags: flags, limits: limits, connections: share)
            } catch {
                // This daemon's socket is its own now (see `start`); the later ones are still this init's.
                for started in daemons { started.loop.execute { started.stopNow() } }
                for unused in sockets[(index + 1)...] { close(unused) }
                throw error
            }
            daemons.append(daemon)
        }
        self.host = host
        self.port = bound
        self.state = state
        self.daemons = daemons
    }

    /// Requests in progress now (read, handled or written).
    public var requestsInFlight: Int { state.inFlight }

    /// The connections open now, and how often a loop reached its share of the limit.
    public var connections: MicroHTTPConnectionTally { state.connections }

    /// Stops accepting connections, lets the requests in progress finish for up to `grace`, answers any
    /// still waiting after that with 503, cuts the answers still streaming (their clients see them end
    /// early), and stops. Requests that arrive meanwhile on open connections are answered 503 with
    /// `Connection: close`.
    public func stop(grace: Duration = .seconds(10)) async {
        state.beginDraining()
        for daemon in daemons { await Self.onLoop(of: daemon) { daemon.quiesce() } }
        let deadline = ContinuousClock.now.advanced(by: grace)
        while state.inFlight > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        for daemon in daemons { daemon.abandonWaiting() }
        state.abortStreams()
        // The abandoned answers need the loop a moment to be written before it stops.
        let written = ContinuousClock.now.advanced(by: .milliseconds(500))
        while state.inFlight > 0, ContinuousClock.now < written {
            try? await Task.sleep(for: .milliseconds(10))
        }
        for daemon in daemons { await Self.onLoop(of: daemon) { daemon.stopNow() } }
    }

    deinit {
        // A server let go of without `stop`: nothing waits; what is still being handled is answered 503,
        // and each daemon stops on its loop, its port free once this returns (a daemon whose loop is this
        // thread stops here; another's is waited for, at most a few seconds should its loop be stuck).
        state.beginDraining()
        for daemon in daemons { daemon.abandonWaiting() }
        state.abortStreams()
        for daemon in daemons {
            if daemon.loop.isCurrent {
                daemon.stopNow()
                continue
            }
            let stopped = DispatchSemaphore(value: 0)
            daemon.loop.execute {
                daemon.stopNow()
                stopped.signal()
            }
            _ = stopped.wait(timeout: .now() + .seconds(5))
        }
    }

    /// Runs `body` on `daemon`'s loop and waits for it.
    private static func onLoop(of daemon: MicroHTTPDaemon, _ body: @escaping @Sendable () -> Void) async {
        if daemon.loop.isCurrent { return body() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            daemon.loop.execute {
                body()
                continuation.resume()
            }
        }
    }
}
