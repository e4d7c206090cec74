public import Data
public import Foundation

/// A development HTTP/1.1 server on 127.0.0.1 that serves any handler, such as
/// ``EmbeddedAuthServer/handle(_:)``, so real HTTP clients and separate processes can reach it.
///
/// It is for development and tests only: plain HTTP, loopback only, one request per connection
/// (`Connection: close`), request heads up to ``maxHeadBytes``, bodies up to ``maxBodyBytes`` declared
/// by `Content-Length` (no chunked bodies), a read timeout per connection, and at most
/// `maxConnections` at once (the rest get 503). Malformed requests get a 4xx, never a crash. Nothing
/// is logged.
public final class LoopbackHTTPServer: Sendable {
    /// What answers each request.
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    /// The largest request line plus header fields accepted (431 or 414 beyond).
    public static let maxHeadBytes = 16 * 1024
    /// The largest request body accepted (413 beyond).
    public static let maxBodyBytes = 64 * 1024

    /// The port the server listens on, chosen by the system when 0 was asked for.
    public var port: UInt16 { listener.port }
    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL {
        // A literal address and a number always make a valid URL.
        URL(string: "http://127.0.0.1:\(port)")!
    }
    private let listener: LoopbackListener

    /// Starts serving `handler` on 127.0.0.1:`port`.
    /// - Parameters:
    ///   - port: the port, or 0 for any free one (read it back from ``port``).
    ///   - readTimeout: how long a connection may take to send its whole request, in seconds (408 after).
    ///   - maxConnections: how many connections are served at once.
    ///   - handler: answers each request.
    /// - Throws: ``LoopbackHTTPServerError`` when the port cannot be bound.
    public init(
        port: UInt16 = 0, readTimeout: TimeInterval = 5, maxConnections: Int = 64, handler: @escaping Handler
    ) throws(LoopbackHTTPServerError) {
        listener = try LoopbackListener(
            port: port, timeout: readTimeout, maxConnections: max(1, maxConnections),
            reader: HTTPRequestReader(headLimit: Self.maxHeadBytes, bodyLimit: Self.maxBodyBytes, timeout: readTimeout),
            handler: handler)
        listener.start()
    }

    /// Stops listening and frees the port at once; requests already being answered finish on their
    /// own threads. Calling it again does nothing.
    public func stop() {
        listener.stop(drain: false)
    }

    /// Stops listening, then waits for the requests already being answered (at most the read timeout
    /// plus a second), blocking the calling thread. For a process about to exit; never call it from a
    /// task on the cooperative pool, whose threads those requests' handlers need.
    public func stopAndDrain() {
        listener.stop(drain: true)
    }

    deinit {
        listener.stop(drain: false)
    }
}
