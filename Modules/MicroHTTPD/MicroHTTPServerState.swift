internal import CMicroHTTPD
import Data
import Epoll
import Foundation

/// What the daemon's callbacks share: the handler, the limits, and the requests in progress, so that
/// a stopping server can wait for them, answer those still waiting and cut the answers still streaming.
///
/// Safety (`@unchecked Sendable`): `handler` and `limits` are immutable; `draining`, `waiting`,
/// `streaming`, `cutting` and `count` are read and written under `lock` only.
final class MicroHTTPServerState: @unchecked Sendable {
    let handler: MicroHTTPServer.ReplyHandler
    let limits: MicroHTTPServerLimits
    private let lock = NSLock()
    private var draining = false
    private var waiting: [ObjectIdentifier: MicroHTTPRequestContext] = [:]
    private var streaming: [ObjectIdentifier: MicroHTTPStreamReader] = [:]
    private var cutting = false
    private var count = 0

    init(handler: @escaping MicroHTTPServer.ReplyHandler, limits: MicroHTTPServerLimits) {
        self.handler = handler
        self.limits = limits
    }

    /// Requests between their first byte and their last answer byte.
    var inFlight: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    /// Whether the server is stopping: new requests are answered 503.
    var isDraining: Bool {
        lock.lock()
        defer { lock.unlock() }
        return draining
    }

    /// Counts a request from its first byte.
    func opened() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    /// Counts a request as finished (answered, or its connection closed).
    func closed() {
        lock.lock()
        count -= 1
        lock.unlock()
    }

    /// Marks the server as stopping.
    func beginDraining() {
        lock.lock()
        draining = true
        lock.unlock()
    }

    /// Hands `context` to the handler, a task on `loop` (the daemon's, this thread's: it starts once the
    /// daemon's run returns, without waking any thread); its connection is resumed with the answer.
    func dispatch(_ context: MicroHTTPRequestContext, _ request: HTTPRequest, on loop: EpollLoop) {
        lock.lock()
        waiting[ObjectIdentifier(context)] = context
        lock.unlock()
        let handler = handler
        Task(executorPreference: loop) {
            let response = await handler(request)
            self.finish(context, with: response)
        }
    }

    /// Answers every request still waiting for its handler with 503 (the server is stopping).
    func abandonWaiting() {
        lock.lock()
        let abandoned = Array(waiting.values)
        waiting = [:]
        lock.unlock()
        for context in abandoned { context.resume(with: .complete(Self.unavailable)) }
    }

    /// Notes an answer that streams, until libmicrohttpd lets go of it; one that starts once the streams
    /// were cut (its handler answered just as the server stopped) is cut at once.
    func track(_ reader: MicroHTTPStreamReader) {
        lock.lock()
        streaming[ObjectIdentifier(reader)] = reader
        let cut = cutting
        lock.unlock()
        if cut { reader.stream.abort() }
    }

    /// Forgets an answer libmicrohttpd let go of.
    func forget(_ reader: MicroHTTPStreamReader) {
        lock.lock()
        streaming[ObjectIdentifier(reader)] = nil
        lock.unlock()
    }

    /// Cuts every answer still streaming (the server is stopping): each client sees its answer end early,
    /// each suspended connection is resumed to be closed, and each stream's writer is told to stop.
    func abortStreams() {
        lock.lock()
        cutting = true
        let cut = Array(streaming.values)
        lock.unlock()
        for reader in cut { reader.stream.abort() }
    }

    private func finish(_ context: MicroHTTPRequestContext, with response: HTTPReply) {
        lock.lock()
        waiting[ObjectIdentifier(context)] = nil
        lock.unlock()
        context.resume(with: response)
    }

    /// The answer to a request the server will not handle because it is stopping. (Computed: a global
    /// holding `Data` reads as a leak to LeakSanitizer, which does not see through its packed storage.)
    static var unavailable: HTTPResponse {
        HTTPResponse(
            status: 503, headers: HTTPHeaders([("Content-Type", "application/json"), ("Connection", "close")]),
            body: Data(#"{"error":"unavailable","message":"the server is stopping"}"#.utf8))
    }
}
