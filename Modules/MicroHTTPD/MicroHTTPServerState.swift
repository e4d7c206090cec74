internal import CMicroHTTPD
import Data
import Foundation
import Locking

/// What the daemon's callbacks share: the handler, the limits, and the requests in progress, so that
/// a stopping server can wait for them and answer those still waiting.
///
/// Safety (`@unchecked Sendable`): `handler` and `limits` are immutable; `draining` and `waiting` are
/// read and written under `lock` only.
final class MicroHTTPServerState: @unchecked Sendable {
    let handler: MicroHTTPServer.Handler
    let limits: MicroHTTPServerLimits
    private let lock = NSLock()
    private var draining = false
    private var waiting: [ObjectIdentifier: MicroHTTPRequestContext] = [:]
    private var count = 0

    init(handler: @escaping MicroHTTPServer.Handler, limits: MicroHTTPServerLimits) {
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

    /// Hands `context` to the handler on Swift's threads; its connection is resumed with the answer.
    func dispatch(_ context: MicroHTTPRequestContext, _ request: HTTPRequest) {
        lock.lock()
        waiting[ObjectIdentifier(context)] = context
        lock.unlock()
        let handler = handler
        Task(executorPreference: Self.handlerExecutor) {
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
        for context in abandoned { context.resume(with: Self.unavailable) }
    }

    private func finish(_ context: MicroHTTPRequestContext, with response: HTTPResponse) {
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

    /// Where handlers run: threads of the server's own, so that a process whose cooperative threads are all
    /// busy (or blocked) still answers its requests.
    private static let handlerExecutor = DispatchTaskExecutor(label: "hardtack.http.handlers")
}
