#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import Synchronization

/// The redirect's request, received and not yet answered: the browser waits on its connection until the
/// app knows how the sign-in ended (the code exchanged, the ID token checked, the session stored), so
/// the page it shows says what really happened. Answered once; one never answered is answered with a
/// neutral message when it goes away.
public final class HeldRedirect: Sendable {
    /// The redirect's query, percent-encoded, without `?`, possibly empty.
    public let query: String
    private let connection: Mutex<Int32>

    init(query: String, connection: Int32) {
        self.query = query
        self.connection = Mutex(connection)
    }

    deinit { answer("The sign-in ended. The terminal says how; you may close this window.") }

    /// Shows `message` in the browser (escaped, nothing else on the page) and closes the connection.
    /// Later calls do nothing.
    public func answer(_ message: String) {
        connection.withLock { fd in
            guard fd >= 0 else { return }
            RedirectSocket.respond(fd, status: "200 OK", message: message)
            _ = systemClose(fd)
            fd = -1
        }
    }
}
