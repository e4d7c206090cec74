import CCurl
import Epoll
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What curl calls back and what the loop calls when curl's sockets and timer are ready: the loop's side of
/// curl's socket interface.
extension CurlMulti {
    /// A socket is ready: curl moves its transfer on. A kept socket curl is not waiting on that shows up
    /// (its server closed it, or sent what nobody asked for) is no longer watched.
    func socketReady(_ socket: Int32, _ events: EpollLoop.Events) {
        guard let multi, !cleanedUp else { return loop.unwatch(socket) }
        guard wanted[socket] != nil else { return loop.unwatch(socket) }
        var mask: Int32 = 0
        if events.contains(.readable) { mask |= Int32(hardtack_curl_select_in) }
        if events.contains(.writable) { mask |= Int32(hardtack_curl_select_out) }
        if !events.isDisjoint(with: .closed) {
            mask |= Int32(hardtack_curl_select_error) | Int32(hardtack_curl_select_in)
        }
        _ = hardtack_curl_socket_action(multi, socket, mask)
        collectFinished()
    }

    /// curl's timer is due.
    func timedOut() {
        timeoutPending = false
        curlDue = nil
        guard let multi, !cleanedUp else { return }
        _ = hardtack_curl_timeout_action(multi)
        collectFinished()
    }

    /// curl's socket callback: what to wait for on `socket`. Never unwatched here (see the type's notes);
    /// watched for reading when curl lets go of it.
    static let socketCallback:
        @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) ->
            Int32 = {
                easy, socket, what, context, _ in
                guard let context else { return 0 }
                let multi = Unmanaged<CurlMulti>.fromOpaque(context).takeUnretainedValue()
                let loop = multi.loop
                var events: EpollLoop.Events = []
                if what == Int32(hardtack_curl_poll_remove) {
                    multi.wanted[socket] = nil
                    // Kept watched only while it is a kept connection's, which curl closes through the callback.
                    if let easy, hardtack_curl_active_socket(easy) == socket {
                        if loop.isWatching(socket) { loop.change(socket, to: .readable) }
                    } else {
                        loop.unwatch(socket)
                    }
                    return 0
                }
                if what & Int32(hardtack_curl_poll_in) != 0 { events.insert(.readable) }
                if what & Int32(hardtack_curl_poll_out) != 0 { events.insert(.writable) }
                multi.wanted[socket] = events
                let watched =
                    loop.isWatching(socket)
                    ? loop.change(socket, to: events)
                    : loop.watch(socket, for: events) { [multi] ready in multi.socketReady(socket, ready) }
                if !watched {
                    // Not watchable (no descriptor left, say): its transfer would wait for nothing, so it ends.
                    multi.wanted[socket] = nil
                    if let easy {
                        let handle = CurlHandlePool.Handle(raw: easy)
                        loop.execute { [multi] in multi.end(handle.raw, CURLE_COULDNT_CONNECT) }
                    }
                }
                return 0
            }

    /// curl's timer callback: run its timeout action after `milliseconds` (-1: no timer). Never from
    /// inside curl: at once means as the loop's next work.
    static let timerCallback: @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer?) -> Int32 = {
        _, milliseconds, context in
        guard let context else { return 0 }
        let multi = Unmanaged<CurlMulti>.fromOpaque(context).takeUnretainedValue()
        multi.curlDue = nil
        if milliseconds < 0 {
            multi.timeoutPending = false
            return 0
        }
        if milliseconds == 0 {
            guard !multi.timeoutPending else { return 0 }
            multi.timeoutPending = true
            multi.loop.execute(multi.pendingTimeout)
            return 0
        }
        multi.timeoutPending = false
        let due = EpollLoop.now() &+ UInt64(milliseconds) &* 1_000_000
        multi.curlDue = due
        multi.arm(at: due)
        return 0
    }

    /// Sets the loop's timer for `at`, unless it fires sooner already.
    func arm(at due: UInt64) {
        if let timer {
            if timer.at <= due { return }
            loop.cancel(timer.id)
        }
        let now = EpollLoop.now()
        let delay = due > now ? Duration.nanoseconds(Int64(due - now)) : .zero
        timer = (loop.schedule(after: delay) { [self] in fired() }, due)
    }

    /// The loop's timer fired: curl's action when it is due, else the timer set again for when it is.
    func fired() {
        timer = nil
        guard let due = curlDue else { return }
        if due > EpollLoop.now() { return arm(at: due) }
        timedOut()
    }

    /// A handle's close-socket callback: the loop forgets the socket, then it is closed.
    static let closeSocket: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32 = { context, socket in
        if let context {
            let multi = Unmanaged<CurlMulti>.fromOpaque(context).takeUnretainedValue()
            // curl closes sockets inside its calls, which run on the loop.
            if multi.loop.isCurrent {
                multi.wanted[socket] = nil
                multi.loop.unwatch(socket)
            }
        }
        return Glibc.close(socket)
    }
}
