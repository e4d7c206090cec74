public import Data
import Epoll
public import Foundation
import Locking

/// The ``HTTPClient`` port over libcurl, every transfer driven by an event loop through curl's multi
/// interface (``CurlMulti``): no cookies, no cache, no credential store, no redirects followed, `http` and
/// `https` only. A call made on an event loop's thread (a server's handler, on ``EpollLoop/current``) runs
/// on that loop and comes back to that thread without waking another; any other call runs on the client's
/// own loop, whose thread ends when idle.
/// A client keeps the connections of its finished transfers open (up to ``idleConnections`` on each loop
/// it ran on) and reuses them, so keep one client per server rather than one per request.
///
/// On Linux this replaces `URLSession`, whose curl driver (swift-corelibs-foundation's `MultiHandle`)
/// keeps the write source it made for the connect on the socket after curl asks only to read, so a
/// request waiting for a silent server spins a core for the whole timeout. Here the loop waits in
/// `epoll_wait` and a wait costs next to nothing. Bodies larger than ``responseSizeLimit`` are refused
/// (``HTTPClientError/responseTooLarge(limit:)``); nothing here logs a header value or a body.
public final class CurlHTTPClient: HTTPClient {
    /// The server's base URL; each request's path is appended to it.
    public let baseURL: URL
    /// How long one request may take, in seconds, before it fails with ``HTTPClientError/timedOut``.
    public let timeout: TimeInterval
    /// The largest response body accepted, in bytes.
    public let responseSizeLimit: Int
    /// The most connections kept open, idle, for the next requests.
    public var idleConnections: Int { handles.capacity }
    /// The connections a client keeps open for reuse on each loop unless told otherwise: 64.
    public static let defaultIdleConnections = 64
    /// The idle handles of this client's transfers.
    let handles: CurlHandlePool
    /// The loop of the calls made off any event loop (its thread ends after the linger without a call).
    let loop: EpollLoop
    /// The client's curl multi on each loop it ran on, with the connections its transfers keep open there.
    private let multis = Locked<[ObjectIdentifier: CurlMulti]>([:])
    /// The multi each thread last used, found again without `multis`' lock (a server's loops make a call at
    /// every request, and would otherwise wait for one another's lock).
    private let lastMulti = PerThread<CurlMulti?> { nil }
    /// The base URL as text without its trailing `/`, which every request's path follows.
    private let base: String

    /// Creates a client for the server at `baseURL`.
    /// - Parameters:
    ///   - baseURL: the server, such as `https://auth.example.com` or `https://example.com/api`.
    ///   - timeout: the limit for one request, 15 seconds by default.
    ///   - responseSizeLimit: the largest body accepted, 1 MiB by default.
    ///   - idleConnections: the most connections kept open for reuse on each loop, 64 by default
    ///     (``defaultIdleConnections``).
    public convenience init(
        baseURL: URL, timeout: TimeInterval = 15, responseSizeLimit: Int = 1 << 20,
        idleConnections: Int = defaultIdleConnections
    ) {
        self.init(
            baseURL: baseURL, timeout: timeout, responseSizeLimit: responseSizeLimit, idleConnections: idleConnections,
            loopLinger: 10)
    }

    /// A client whose event loop's thread ends after `loopLinger` seconds without a transfer.
    init(baseURL: URL, timeout: TimeInterval, responseSizeLimit: Int, idleConnections: Int, loopLinger: Double) {
        self.baseURL = baseURL
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        self.base = base
        self.timeout = timeout
        self.responseSizeLimit = responseSizeLimit
        handles = CurlHandlePool(capacity: max(0, idleConnections))
        loop = EpollLoop(name: "hardtack.curl", linger: .milliseconds(Int64(max(0, loopLinger) * 1000)))
    }

    deinit {
        // Each multi closes its kept connections on its loop, once its transfers (which hold it) are over.
        for multi in multis.withLock({ Array($0.values) }) { multi.close() }
    }

    /// The multi for a call made now: the one on the calling thread's loop, or on the client's own.
    func multi() -> CurlMulti {
        let loop = EpollLoop.current ?? self.loop
        // Not a retired loop's (a stopped server's): its multi is closed once another loop's first call sees it.
        if let last = lastMulti.withLock({ $0 }), last.loop === loop, !loop.isRetired { return last }
        let key = ObjectIdentifier(loop)
        let (multi, retired) = multis.withLock { multis -> (CurlMulti, [CurlMulti]) in
            if let multi = multis[key] { return (multi, []) }
            // A new loop: the multis of loops retired since (stopped servers') close their connections.
            let retired = multis.filter { $0.value.loop.isRetired }
            for key in retired.keys { multis[key] = nil }
            let multi = CurlMulti(loop: loop, idleConnections: handles.capacity)
            multis[key] = multi
            return (multi, Array(retired.values))
        }
        for old in retired { old.close() }
        if !retired.isEmpty {
            // Not kept alive, loop and all, by a thread that last called on it.
            lastMulti.forEach { last in
                if let kept = last, retired.contains(where: { $0 === kept }) { last = nil }
            }
        }
        lastMulti.withLock { $0 = multi }
        return multi
    }

    /// Sends `request` and returns the server's response, whatever its status.
    /// - Throws: ``HTTPClientError/cannotConnect(_:)``, ``HTTPClientError/timedOut``,
    ///   ``HTTPClientError/responseTooLarge(limit:)`` or ``HTTPClientError/transport(_:)``.
    public func send(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
        let transfer = CurlTransfer(
            url: try url(for: request), request: request, timeoutMilliseconds: max(1, Int(timeout * 1000)),
            limit: responseSizeLimit)
        let (handles, multi) = (handles, multi())
        let outcome = await withTaskCancellationHandler {
            // Resumed exactly once: each way `start` ends calls `finished` once and only once.
            await withUnsafeContinuation { continuation in
                // On an event loop's thread, with other transfers: waiting for the server holds no thread,
                // least of all one of the few Swift's concurrency runs on.
                transfer.start(in: handles, on: multi) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            transfer.cancel()
        }
        return try outcome.get()
    }

    /// The full URL of `request`: base URL plus path. The path is left out of any error: its query string
    /// could hold a token.
    func url(for request: HTTPRequest) throws(HTTPClientError) -> String {
        guard request.path.utf8.allSatisfy(HTTPRequest.isURLByte) else {
            throw .transport("the request path is not a valid URL")
        }
        return base + (request.path.hasPrefix("/") ? request.path : "/" + request.path)
    }
}
