import Locking

/// The redirect's request, received and not yet answered: the browser waits on its connection until the
/// app knows how the sign-in ended (the code exchanged, the ID token checked, the session stored), so
/// the page it shows says what really happened. Answered once; one never answered is answered with a
/// neutral message when it goes away.
public final class HeldRedirect: Sendable {
    /// The redirect's query, percent-encoded, without `?`, possibly empty.
    public let query: String
    /// The request's handler, suspended until it is given the message to show.
    private let reply: Locked<CheckedContinuation<String, Never>?>

    init(query: String, reply: CheckedContinuation<String, Never>) {
        self.query = query
        self.reply = Locked(reply)
    }

    deinit { answer("The sign-in ended. The terminal says how; you may close this window.") }

    /// Shows `message` in the browser (escaped, nothing else on the page); the listener's server writes
    /// it, and ``LoopbackRedirectListener/close()`` waits until it has. Later calls do nothing.
    public func answer(_ message: String) {
        let waiting = reply.withLock { reply in
            defer { reply = nil }
            return reply
        }
        waiting?.resume(returning: message)
    }
}
