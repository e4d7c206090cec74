import Data
import MicroHTTPD

/// A one-shot HTTP listener on 127.0.0.1 on an ephemeral port, for the redirect of a native app's
/// authorization request (RFC 8252 §7.3), served by libmicrohttpd (``MicroHTTPServer``). A request
/// that is not a `GET` gets 400 and one for another path (a browser's favicon) 404, and the wait goes
/// on; the first `GET` of the redirect path ends the wait with its query, and the browser is shown a
/// page that holds nothing but a message (at once, or held until the caller knows how the sign-in
/// ended); the redirect again (a reload) gets 409. Never another interface.
public final class LoopbackRedirectListener: Sendable {
    /// The bounds of the listener's server: a redirect's head is far under 8 KiB, and it has no body.
    static let limits = MicroHTTPServerLimits(
        requestHeadBytes: 8 * 1024, requestBodyBytes: 1024, connections: 16, idleSeconds: 5, threads: 1)

    /// The port the system chose.
    public var port: UInt16 { server.port }
    /// The redirect path, such as `/callback`.
    public let path: String
    private let server: MicroHTTPServer
    /// Where the server's handler and the waits meet.
    let inbox: RedirectInbox

    /// The redirect URI to register in the authorization request.
    public var redirectURI: String { "http://127.0.0.1:\(port)\(path)" }

    /// Opens the listener.
    /// - Throws: ``RedirectListenerError/listen(_:)``.
    public init(path: String = "/callback") throws(RedirectListenerError) {
        let inbox = RedirectInbox(path: path)
        do throws(MicroHTTPServerError) {
            server = try MicroHTTPServer(host: "127.0.0.1", port: 0, limits: Self.limits) { request in
                await inbox.respond(to: request)
            }
        } catch {
            throw .listen(error.description)
        }
        self.path = path
        self.inbox = inbox
    }

    deinit {
        // Ends waits and answers a redirect nobody took; the server, let go of, stops on its own.
        inbox.close()
    }

    /// Stops listening: later waits fail at once, a redirect nobody took is answered, and the server
    /// stops once the pages already answered are written (a held redirect not answered within 5 s
    /// gets 503): answer a ``HeldRedirect`` before closing.
    public func close() async {
        inbox.close()
        await server.stop(grace: .seconds(5))
    }

    /// Waits up to `timeout` seconds for the redirect and returns its query (percent-encoded, without
    /// `?`, possibly empty). `page` gives the message shown in the browser for that query.
    /// - Throws: ``RedirectListenerError``.
    public func receive(timeout: Int, page: @escaping @Sendable (String) -> String) async throws(RedirectListenerError)
        -> String
    {
        // Answered by the request's handler as soon as it arrives, so the browser never waits for this
        // task to be resumed.
        try await receive(timeout: timeout, answering: page).query
    }

    /// Waits up to `timeout` seconds for the redirect and returns it unanswered: the browser is shown a
    /// page only when the caller calls ``HeldRedirect/answer(_:)``, once it knows how the sign-in ended.
    /// - Throws: ``RedirectListenerError``.
    public func receiveHeld(timeout: Int) async throws(RedirectListenerError) -> HeldRedirect {
        try await receive(timeout: timeout, answering: nil)
    }

    /// The wait: ended by the redirect, by a timer, by cancellation or by ``close()``.
    private func receive(timeout: Int, answering page: (@Sendable (String) -> String)?)
        async throws(RedirectListenerError) -> HeldRedirect
    {
        let inbox = inbox
        let id = inbox.newWait()
        let timer = Task {
            do {
                try await Task.sleep(for: .seconds(timeout))
            } catch {
                return  // The wait ended first.
            }
            inbox.end(id, .timedOut(seconds: timeout))
        }
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { inbox.wait(id, page: page, $0) }
        } onCancel: {
            inbox.end(id, .cancelled)
        }
        timer.cancel()
        await timer.value
        inbox.forget(id)
        return try outcome.get()
    }
}
