#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import Synchronization

/// A one-shot HTTP listener on 127.0.0.1 on an ephemeral port, for the redirect of a native app's
/// authorization request (RFC 8252 §7.3). It answers requests for other paths (a browser's favicon)
/// with 404 and keeps waiting; the first `GET` of the redirect path ends the wait with its query, and
/// the browser is shown a page that holds nothing but a message (at once, or held until the caller
/// knows how the sign-in ended). Never another interface.
public final class LoopbackRedirectListener: Sendable {
    /// The port the system chose.
    public let port: UInt16
    /// The redirect path, such as `/callback`.
    public let path: String
    private let descriptor: Mutex<Int32>

    /// The redirect URI to register in the authorization request.
    public var redirectURI: String { "http://127.0.0.1:\(port)\(path)" }

    /// Opens the listener.
    /// - Throws: ``RedirectListenerError/socket(call:errno:)``.
    public init(path: String = "/callback") throws(RedirectListenerError) {
        let (fd, port) = try RedirectSocket.listenOnLoopback()
        self.port = port
        self.path = path
        descriptor = Mutex(fd)
    }

    deinit { close() }

    /// Stops listening; later waits fail at once.
    public func close() {
        descriptor.withLock { fd in
            if fd >= 0 { _ = systemClose(fd) }
            fd = -1
        }
    }

    /// Waits up to `timeout` seconds for the redirect and returns its query (percent-encoded, without
    /// `?`, possibly empty). `page` gives the message shown in the browser for that query.
    /// - Throws: ``RedirectListenerError``.
    public func receive(timeout: Int, page: @escaping @Sendable (String) -> String) async throws(RedirectListenerError)
        -> String
    {
        // Answered on the listener's own thread as soon as it arrives, so the browser never waits for this
        // task to be resumed.
        try await receive(timeout: timeout, answering: page).query
    }

    /// Waits up to `timeout` seconds for the redirect and returns it unanswered: the browser is shown a
    /// page only when the caller calls ``HeldRedirect/answer(_:)``, once it knows how the sign-in ended.
    /// - Throws: ``RedirectListenerError``.
    public func receiveHeld(timeout: Int) async throws(RedirectListenerError) -> HeldRedirect {
        try await receive(timeout: timeout, answering: nil)
    }

    /// The wait, on a thread of its own; `page`, when given, answers the redirect there at once.
    private func receive(timeout: Int, answering page: (@Sendable (String) -> String)?)
        async throws(RedirectListenerError) -> HeldRedirect
    {
        let cancelled = Mutex(false)
        let result: Result<HeldRedirect, RedirectListenerError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // The wait blocks in poll(2), so it runs on a thread of its own, not the cooperative pool.
                Thread.detachNewThread { [self] in
                    let result = self.wait(timeout: timeout, cancelled: cancelled)
                    if let page, case .success(let redirect) = result { redirect.answer(page(redirect.query)) }
                    continuation.resume(returning: result)
                }
            }
        } onCancel: {
            cancelled.withLock { $0 = true }
        }
        return try result.get()
    }

    private func wait(timeout: Int, cancelled: borrowing Mutex<Bool>) -> Result<HeldRedirect, RedirectListenerError> {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            if cancelled.withLock({ $0 }) { return .failure(.cancelled) }
            guard ContinuousClock.now < deadline else { return .failure(.timedOut(seconds: timeout)) }
            let fd = descriptor.withLock { $0 }
            guard fd >= 0 else { return .failure(.cancelled) }
            // Short slices, so cancellation is seen within a quarter of a second.
            guard RedirectSocket.readable(fd, milliseconds: 250) else { continue }
            guard let connection = RedirectSocket.accept(fd) else { continue }
            guard let target = RedirectSocket.readRequestTarget(connection) else {
                RedirectSocket.respond(connection, status: "400 Bad Request", message: "Bad request.")
                _ = systemClose(connection)
                continue
            }
            let (requestPath, query) = Self.split(target)
            guard requestPath == path else {
                RedirectSocket.respond(connection, status: "404 Not Found", message: "Not found.")
                _ = systemClose(connection)
                continue
            }
            return .success(HeldRedirect(query: query, connection: connection))
        }
    }

    private static func split(_ target: String) -> (String, String) {
        guard let mark = target.firstIndex(of: "?") else { return (target, "") }
        return (String(target[..<mark]), String(target[target.index(after: mark)...]))
    }
}

/// `close(2)`, named apart from the listener's own `close()`.
func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
        Darwin.close(fd)
    #else
        Glibc.close(fd)
    #endif
}
