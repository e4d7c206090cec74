internal import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#endif

/// The bound on the time a client takes to send a request's head, counted from its connection's start or
/// from the end of the request before it on the same connection. libmicrohttpd drops only a connection that
/// goes quiet: one that trickles a byte of its head now and then would hold its connection, and a few
/// hundred such would hold every one. Once a second, ``sweep(now:)`` looks at each connection that is not
/// on a request whose head it has read; one whose head is late has its socket shut down, and libmicrohttpd,
/// reading the end, closes it as it closes any other. A kept connection that sends nothing is dropped the
/// same way (or by libmicrohttpd's idle limit, whichever comes first), so a cut is not logged: it cannot
/// tell a trickled head from silence.
///
/// Loop's thread only: libmicrohttpd calls ``opened(_:now:)``, ``closed(_:)`` and ``requestEnded(_:now:)``
/// from its run on the daemon's loop, and the loop runs the sweep. libmicrohttpd reports a connection closed
/// before it closes its socket, so a socket shut down here is always the connection's own.
final class MicroHTTPHeadDeadline {
    /// What is known of one connection.
    private struct Watched {
        let socket: Int32
        /// When its connection began or its last request ended (monotonic nanoseconds): the head it is on,
        /// if not read yet, began after.
        var since: UInt64
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

    /// A request on `connection` ended at `now`, answered or not: the next head's time begins.
    func requestEnded(_ connection: OpaquePointer, now: UInt64) { connections[connection]?.since = now }

    /// Shuts down the sockets of the connections whose head is late at `now`, and returns how many.
    func sweep(now: UInt64) -> Int {
        var cut = 0
        for (connection, watched) in connections
        where !watched.cut && now &- watched.since >= limit && watched.socket >= 0
            && !hardtack_mhd_head_received(connection)
        {
            shutdown(watched.socket, Int32(SHUT_RDWR))
            connections[connection]?.cut = true
            cut += 1
        }
        return cut
    }
}
