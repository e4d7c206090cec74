#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Waiting on libpq's socket with `poll`, bounded by a deadline.
enum PostgreSQLSocketWait {
    /// Waits until `socket` is readable (or writable, when `writing`) or `deadline` passes; `false`
    /// when the deadline passed first. An error or hang-up counts as ready: libpq then reports it.
    static func wait(_ socket: Int32, writing: Bool, until deadline: ContinuousClock.Instant) -> Bool {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN) | (writing ? Int16(POLLOUT) : 0), revents: 0)
        while true {
            let now = ContinuousClock.now
            guard now < deadline else { return false }
            let milliseconds = Int32(clamping: (deadline - now).wholeMilliseconds)
            let ready = poll(&descriptor, 1, max(1, milliseconds))
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return true }
        }
    }

    /// Whether `socket` has something to read (or was closed) right now, without waiting.
    static func isReadable(_ socket: Int32) -> Bool {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0
    }
}
