internal import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#endif

/// What libmicrohttpd 0.9.75 does not drop by itself, looked for once a second: a connection whose head is
/// late, and one whose client has closed in the middle of a request.
///
/// **A late head.** The bound on the time a client takes to send a request's head is counted from its
/// connection's start or from the end of the request before it on the same connection. libmicrohttpd drops
/// only a connection that goes quiet: one that trickles a byte of its head now and then would hold its
/// connection, and a few hundred such would hold every one. A kept connection that sends nothing is dropped
/// the same way (or by libmicrohttpd's idle limit, whichever comes first), so a cut is not logged: it cannot
/// tell a trickled head from silence.
///
/// **A request its client abandoned.** A client that closes its side with the last bytes of a head or body
/// that is not whole (one segment carries both, or both arrived before libmicrohttpd read) would hold its
/// connection until the idle limit: libmicrohttpd takes a read that did not fill its buffer for a drained
/// socket, and waits for a readiness the close has already given. Such a request can never become whole. A
/// connection that is neither suspended (its request with the handler) nor writing an answer, and whose
/// socket holds nothing more to read but the client's end, is cut. A client that closes its side once its
/// request is whole is not: its connection is suspended while the handler runs, and writing once answered
/// (see ``MicroHTTPCallbacks/completed`` for how a half-closed client gets its answer).
///
/// Either way the socket is shut down, and libmicrohttpd, reading the end, closes the connection as it closes
/// any other. Loop's thread only: libmicrohttpd calls ``opened(_:now:)``, ``closed(_:)`` and
/// ``requestEnded(_:now:)`` from its run on the daemon's loop, and the loop runs the sweep. libmicrohttpd
/// reports a connection closed before it closes its socket, so a socket shut down here is always the
/// connection's own.
final class MicroHTTPConnectionWatch {
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
    init(headSeconds seconds: Int) { limit = UInt64(max(seconds, 1)) * 1_000_000_000 }

    /// A connection was accepted at `now`.
    func opened(_ connection: OpaquePointer, now: UInt64) {
        connections[connection] = Watched(socket: hardtack_mhd_connection_socket(connection), since: now)
    }

    /// A connection is about to be closed (its socket still open); whether it was watched.
    @discardableResult
    func closed(_ connection: OpaquePointer) -> Bool { connections.removeValue(forKey: connection) != nil }

    /// How many connections are open now (accepted, not yet closed).
    var count: Int { connections.count }

    /// A request on `connection` ended at `now`, answered or not: the next head's time begins.
    func requestEnded(_ connection: OpaquePointer, now: UInt64) { connections[connection]?.since = now }

    /// Shuts down the sockets of the connections whose head is late at `now`, or whose request was abandoned
    /// (the daemon's run that follows every sweep sees their ends and closes them).
    func sweep(now: UInt64) {
        for (connection, watched) in connections where !watched.cut && watched.socket >= 0 {
            let late = now &- watched.since >= limit && !hardtack_mhd_head_received(connection)
            guard late || abandoned(connection, socket: watched.socket) else { continue }
            shutdown(watched.socket, Int32(SHUT_RDWR))
            connections[connection]?.cut = true
        }
    }

    /// Whether `connection` is reading a request (not suspended, no answer queued) and its socket holds
    /// the client's end and nothing before it: a peek, which takes nothing from libmicrohttpd's reads.
    ///
    /// That such a connection's request can never become whole rests on two things: the handler takes every
    /// byte of a body libmicrohttpd hands it (it never holds back), so a request read whole reaches its
    /// suspension or its answer within the one run that read it; and the sweep runs between runs. One narrow
    /// case is cut though it might have been answered: a client that sent `Expect: 100-continue`, its whole
    /// body and its end, while not reading, so that libmicrohttpd's `100 Continue` (no answer of its own)
    /// could not be written in that run.
    private func abandoned(_ connection: OpaquePointer, socket: Int32) -> Bool {
        guard !hardtack_mhd_connection_suspended(connection), !hardtack_mhd_response_queued(connection) else {
            return false
        }
        var byte: UInt8 = 0
        return recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0
    }
}
