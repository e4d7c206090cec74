internal import CEpoll
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A loop's timers and the work it runs at the end of a pass.
extension EpollLoop {
    /// Runs `body` once the work of this pass is done, before the loop next waits; asked again with the
    /// same `key` within the pass, it still runs once. For work that many handlers of one pass share (one
    /// `write` of the lines they logged). Loop's thread only.
    package func atEndOfPass(key: ObjectIdentifier, _ body: @escaping () -> Void) {
        precondition(isCurrent, "EpollLoop.atEndOfPass is for the loop's thread")
        guard !passEnd.contains(where: { $0.key == key }) else { return }
        passEnd.append((key, body))
    }

    /// Runs `body` on the loop's thread once `delay` has passed (at the first pass after it); its identity,
    /// to ``cancel(_:)`` it. Loop's thread only.
    @discardableResult
    package func schedule(after delay: Duration, _ body: @escaping () -> Void) -> UInt64 {
        precondition(isCurrent, "EpollLoop.schedule is for the loop's thread")
        let (seconds, attoseconds) = delay.components
        let nanoseconds =
            seconds <= 0 && attoseconds <= 0 ? 0 : UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
        return timers.add(at: Self.now() &+ nanoseconds, body)
    }

    /// Cancels timer `id` (nothing happens when it ran already). Loop's thread only.
    package func cancel(_ id: UInt64) {
        precondition(isCurrent, "EpollLoop.cancel is for the loop's thread")
        timers.cancel(id)
    }

    /// Monotonic nanoseconds.
    package static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Milliseconds from `now` to `deadline`, rounded up (0 when it passed), for `epoll_wait`.
    static func milliseconds(from now: UInt64, to deadline: UInt64) -> Int32 {
        guard deadline > now else { return 0 }
        return Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
    }
}
