public import Data
public import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The ``HTTPClient`` port over `URLSession`: one ephemeral session per client, with no cookies, no
/// cache, no credential store and no redirects followed.
///
/// Redirects are refused for every request, not only for POSTs that carry credentials: a 3xx response
/// comes back to the caller as it is, so a password or refresh token is never re-sent to another
/// location. Bodies larger than ``responseSizeLimit`` are cut off and reported as
/// ``HTTPClientError/responseTooLarge(limit:)``. Nothing here logs a header value or a body.
public final class URLSessionHTTPClient: HTTPClient {
    /// The server's base URL; each request's path is appended to it.
    public let baseURL: URL
    /// How long one request may take, in seconds, before it fails with ``HTTPClientError/timedOut``.
    /// On Linux it is rounded up to whole seconds (at least one).
    public let timeout: TimeInterval
    /// The largest response body accepted, in bytes.
    public let responseSizeLimit: Int
    private let session: URLSession
    private let router: URLSessionExchangeRouter

    /// Creates a client for the server at `baseURL`.
    /// - Parameters:
    ///   - baseURL: the server, such as `https://auth.example.com` or `https://example.com/api`.
    ///   - timeout: the limit for one request, 15 seconds by default.
    ///   - responseSizeLimit: the largest body accepted, 1 MiB by default.
    public init(baseURL: URL, timeout: TimeInterval = 15, responseSizeLimit: Int = 1 << 20) {
        self.baseURL = baseURL
        #if canImport(FoundationNetworking)
            // FoundationNetworking truncates timeouts to whole seconds, so 0.5 s would expire at once.
            let timeout = max(1, timeout.rounded(.up))
        #endif
        self.timeout = timeout
        self.responseSizeLimit = responseSizeLimit
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        // The resource timeout bounds the whole exchange; the request timeout alone only bounds the
        // gaps between packets, so a server trickling bytes could hold a call open forever.
        configuration.timeoutIntervalForResource = timeout
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.urlCredentialStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        router = URLSessionExchangeRouter()
        // The session keeps its delegate alive until it is invalidated, which `deinit` does; the router
        // holds no reference back to the client, so there is no cycle.
        session = URLSession(configuration: configuration, delegate: router, delegateQueue: nil)
    }

    deinit {
        // Without this the session and its delegate would outlive the client.
        session.invalidateAndCancel()
    }

    /// Sends `request` and returns the server's response, whatever its status.
    /// - Throws: ``HTTPClientError/cannotConnect(_:)``, ``HTTPClientError/timedOut``,
    ///   ``HTTPClientError/responseTooLarge(limit:)`` or ``HTTPClientError/transport(_:)``.
    public func send(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
        let urlRequest = try makeURLRequest(request)
        let exchange = URLSessionExchange(limit: responseSizeLimit)
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                exchange.start(session.dataTask(with: urlRequest), router: router, continuation: continuation)
            }
        } onCancel: {
            exchange.cancel()
        }
        return try outcome.get()
    }

    /// The `URLRequest` for `request`: base URL plus path, method, headers and body.
    private func makeURLRequest(_ request: HTTPRequest) throws(HTTPClientError) -> URLRequest {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let path = request.path.hasPrefix("/") ? request.path : "/" + request.path
        // The path is left out of the error: its query string could hold a token.
        guard let url = URL(string: base + path) else { throw .transport("the request path is not a valid URL") }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        urlRequest.httpShouldHandleCookies = false
        for field in request.headers {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        if !request.body.isEmpty { urlRequest.httpBody = request.body }
        return urlRequest
    }
}
