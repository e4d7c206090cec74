import Data
import Locking

/// Where the listener's HTTP handler and its waits meet: the first `GET` of the redirect path is handed
/// to the caller waiting for it (or kept until one waits), later ones are refused, and a wait ends with
/// the redirect, its deadline, its cancellation or the listener's close, whichever comes first.
final class RedirectInbox: Sendable {
    /// A wait's outcome.
    typealias Outcome = Result<HeldRedirect, RedirectListenerError>

    /// A caller waiting, with the page to show at once (`nil`: the caller answers when it knows how the
    /// sign-in ended).
    private struct Waiter {
        let continuation: CheckedContinuation<Outcome, Never>
        let page: (@Sendable (String) -> String)?
    }

    private struct State {
        /// Whether the redirect arrived (later ones are refused).
        var received = false
        /// The redirect, arrived before anyone waited.
        var pending: HeldRedirect?
        var waiters: [Int: Waiter] = [:]
        /// Waits ended (timed out, cancelled) before they were registered.
        var endedEarly: [Int: RedirectListenerError] = [:]
        var nextWait = 0
        var closed = false
    }

    /// The redirect path, such as `/callback`.
    let path: String
    private let state = Locked(State())

    init(path: String) {
        self.path = path
    }

    /// Answers one request to the listener: the redirect is held until a waiter gives its page.
    func respond(to request: HTTPRequest) async -> HTTPResponse {
        guard request.method == "GET" else { return RedirectPage.badRequest }
        let (requestPath, query) = Self.split(request.path)
        guard requestPath == path else { return RedirectPage.notFound }
        let first = state.withLock { state in
            defer { state.received = true }
            return !state.received && !state.closed
        }
        guard first else { return RedirectPage.alreadyReceived }
        let message = await withCheckedContinuation { reply in
            deliver(HeldRedirect(query: query, reply: reply))
        }
        return RedirectPage.response(200, message)
    }

    /// Whether a redirect arrived and waits for someone to take it.
    var holdsARedirect: Bool {
        state.withLock { $0.pending != nil }
    }

    /// A number for a new wait, to end it by.
    func newWait() -> Int {
        state.withLock { state in
            defer { state.nextWait += 1 }
            return state.nextWait
        }
    }

    /// Waits `id` for the redirect; `page`, when given, answers it at once, from the handler's thread.
    func wait(_ id: Int, page: (@Sendable (String) -> String)?, _ continuation: CheckedContinuation<Outcome, Never>) {
        let now: Outcome? = state.withLock { state in
            if let error = state.endedEarly.removeValue(forKey: id) { return .failure(error) }
            if state.closed { return .failure(.cancelled) }
            if let redirect = state.pending {
                state.pending = nil
                return .success(redirect)
            }
            state.waiters[id] = Waiter(continuation: continuation, page: page)
            return nil
        }
        guard let now else { return }
        if case .success(let redirect) = now, let page { redirect.answer(page(redirect.query)) }
        continuation.resume(returning: now)
    }

    /// Ends wait `id` with `error`, now or as soon as it is registered; nothing once it has ended.
    func end(_ id: Int, _ error: RedirectListenerError) {
        let waiter = state.withLock { state in
            guard let waiter = state.waiters.removeValue(forKey: id) else {
                state.endedEarly[id] = error
                return Waiter?.none
            }
            return waiter
        }
        waiter?.continuation.resume(returning: .failure(error))
    }

    /// Lets go of what is kept for wait `id` once it has ended.
    func forget(_ id: Int) {
        state.withLock { _ = $0.endedEarly.removeValue(forKey: id) }
    }

    /// Refuses every wait from now on, ends those waiting, and answers a redirect nobody took.
    func close() {
        let (waiters, pending) = state.withLock { state in
            state.closed = true
            defer {
                state.waiters = [:]
                state.pending = nil
            }
            return (Array(state.waiters.values), state.pending)
        }
        for waiter in waiters { waiter.continuation.resume(returning: .failure(.cancelled)) }
        pending?.answer(Self.stopped)
    }

    /// Hands the redirect to the first waiter, or keeps it for the next wait; answers it at once when the
    /// listener closed meanwhile.
    private func deliver(_ redirect: HeldRedirect) {
        let (waiter, closed) = state.withLock { state -> (Waiter?, Bool) in
            if state.closed { return (nil, true) }
            guard let id = state.waiters.keys.min() else {
                state.pending = redirect
                return (nil, false)
            }
            return (state.waiters.removeValue(forKey: id), false)
        }
        if closed { redirect.answer(Self.stopped) }
        guard let waiter else { return }
        if let page = waiter.page { redirect.answer(page(redirect.query)) }
        waiter.continuation.resume(returning: .success(redirect))
    }

    /// What a redirect nobody took is answered with once the listener closes.
    private static let stopped = "The sign-in was stopped. The terminal says why; you may close this window."

    /// The path and the query (without `?`) of a request target.
    private static func split(_ target: String) -> (String, String) {
        guard let mark = target.firstIndex(of: "?") else { return (target, "") }
        return (String(target[..<mark]), String(target[target.index(after: mark)...]))
    }
}
