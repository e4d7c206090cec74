internal import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#endif

/// The bound on the time a client takes to send a request's head, counted from its connection's start or
/// from the request before it on the same connection (nginx's `client_header_timeout`). libmicrohttpd drops
/// only a connection that goes quiet: one that trickles a byte of its head now and then would hold its
/// connection, and a few hundred such would hold every one. Once a second, ``sweep(now:)`` looks at each
/// connection still waiting for or reading a head; one that has been at it longer than the bound has its
/// socket shut down, and libmicrohttpd, reading the end, closes it as it closes any other.
///
/// Loop's thread only: libmicrohttpd calls ``opened(_:)``, ``closed(_:)`` and ``requestLineRead(_:)`` from
/// its run on the daemon's loop, and the loop runs the sweep. libmicrohttpd reports a connection closed
/// before it closes its socket, so a socket shut down here is always the connection's own.
final class MicroHTTPHeadDeadline {
    /// What is known of one connection.
    private struct Watched {
        let socket: Int32
        /// Request lines read on it, and the count when `since` was last set: a change means heads came.
        var requests: UInt64 = 0
        var counted: UInt64 = 0
        /// Since when it has been waiting for or reading a head (monotonic nanoseconds); `nil` while a
        /// request is being handled or answered.
        var since: UInt64?
        var cut = false
    }

    private let limit: UInt64
    private var connections: [OpaquePointer: Watched] = [:]

    /// A deadline of `seconds` for each head.
    init(seconds: Int) { limit = UInt64(max(seconds, 1)) * 1_000_000_000 }

    /// A connection was accepted at `now`.
    func opened(_ connection: OpaquePointer, now: UInt64) {
        connections[connection] = Watched(socket: hardtack_mhd_connection_socket(connection), since: now)
    }

    /// A connection is about to be closed (its socket still open).
    func closed(_ connection: OpaquePointer) { connections[connection] = nil }

    /// A request line was read on `connection`: a head is coming, so the one before is not still the one read.
    func requestLineRead(_ connection: OpaquePointer) { connections[connection]?.requests &+= 1 }

    /// Shuts down the sockets of the connections whose head is late at `now`, calling `cutting` before each,
    /// and returns how many.
    func sweep(now: UInt64, cutting: () -> Void) -> Int {
        var cut = 0
        for (connection, var watched) in connections where !watched.cut {
            defer { connections[connection] = watched }
            if hardtack_mhd_head_received(connection) {
                watched.since = nil
            } else if watched.since == nil || watched.requests != watched.counted {
                // A head begun since the last look (or heads read and answered between two looks).
                watched.since = now
                watched.counted = watched.requests
            } else if let since = watched.since, now &- since >= limit, watched.socket >= 0 {
                cutting()
                shutdown(watched.socket, Int32(SHUT_RDWR))
                watched.cut = true
                cut += 1
            }
        }
        return cut
    }
}
