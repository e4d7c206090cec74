public import Data
public import Foundation

/// The ``HTTPClient`` port over libcurl, every transfer of a client driven by its event loop
/// (``CurlEventLoop``, one thread on curl's multi interface): no cookies, no cache, no credential store, no redirects
/// followed, `http` and `https` only.
/// A client keeps the connections of its finished transfers open (up to ``idleConnections``) and reuses
/// them, so keep one client per server rather than one per request.
///
/// On Linux this replaces `URLSession`, whose curl driver (swift-corelibs-foundation's `MultiHandle`)
/// keeps the write source it made for the connect on the socket after curl asks only to read, so a
/// request waiting for a silent server spins a core for the whole timeout. Here the loop waits in
/// `curl_multi_poll` and a wait costs next to nothing. Bodies larger than ``responseSizeLimit`` are refused
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
    /// The idle handles of this client's transfers.
    let handles: CurlHandlePool
    /// The thread running this client's transfers, and the connections they keep open.
    let loop: CurlEventLoop
    /// The base URL as text without its trailing `/`, which every request's path follows.
    private let base: String

    /// Creates a client for the server at `baseURL`.
    /// - Parameters:
    ///   - baseURL: the server, such as `https://auth.example.com` or `https://example.com/api`.
    ///   - timeout: the limit for one request, 15 seconds by default.
    ///   - responseSizeLimit: the largest body accepted, 1 MiB by default.
    ///   - idleConnections: the most connections kept open for reuse, 64 by default.
    public convenience init(
        baseURL: URL, timeout: TimeInterval = 15, responseSizeLimit: Int = 1 << 20, idleConnections: Int = 64
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
        loop = CurlEventLoop(idleConnections: max(0, idleConnections), linger: loopLinger)
    }

    /// Sends `request` and returns the server's response, whatever its status.
    /// - Throws: ``HTTPClientError/cannotConnect(_:)``, ``HTTPClientError/timedOut``,
    ///   ``HTTPClientError/responseTooLarge(limit:)`` or ``HTTPClientError/transport(_:)``.
    public func send(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
        let transfer = CurlTransfer(
            url: try url(for: request), request: request, timeoutMilliseconds: max(1, Int(timeout * 1000)),
            limit: responseSizeLimit)
        let (handles, loop) = (handles, loop)
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // On the event loop's thread, with every other transfer: waiting for the server holds no
                // thread, least of all one of the few Swift's concurrency runs on.
                transfer.start(in: handles, on: loop) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            transfer.cancel()
        }
        return try outcome.get()
    }

    /// The full URL of `request`: base URL plus path. The path is left out of any error: its query string
    /// could hold a token.
    func url(for request: HTTPRequest) throws(HTTPClientError) -> String {
        let url = base + (request.path.hasPrefix("/") ? request.path : "/" + request.path)
        guard URL(string: url) != nil, !url.utf8.contains(0) else {
            throw .transport("the request path is not a valid URL")
        }
        return url
    }
}
