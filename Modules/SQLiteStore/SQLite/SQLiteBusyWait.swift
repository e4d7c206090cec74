#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import StoreCore
import Dispatch

/// The state of one connection's busy handler: how long it may keep waiting for another connection's
/// lock, and since when it has waited for the current one. Used only by its connection's thread.
final class SQLiteBusyWait {
    /// The longest wait, in nanoseconds.
    var limitNanoseconds: UInt64 = 0
    /// When the wait for the current lock began.
    var startedNanoseconds: UInt64 = 0
    /// Told once per wait after a second of it (a person should not watch a silent terminal).
    var onLongWait: (@Sendable () -> Void)?
    /// Whether a lock held by another connection fails at once (busy) instead of being waited for.
    var refusesToWait = false
    private var told = false

    /// SQLite's busy handler: waits 0.5 to 1.5 ms (jittered, so waiters do not move in step) and tries
    /// again, until the limit since the first try for this lock has passed. `context` is the
    /// connection's `SQLiteBusyWait`.
    static func retry(_ context: UnsafeMutableRawPointer?, _ attempts: Int32) -> Int32 {
        guard let context else { return 0 }
        let wait = Unmanaged<SQLiteBusyWait>.fromOpaque(context).takeUnretainedValue()
        if wait.refusesToWait { return 0 }
        let now = DispatchTime.now().uptimeNanoseconds
        if attempts == 0 {
            wait.startedNanoseconds = now
            wait.told = false
        }
        guard now - wait.startedNanoseconds < wait.limitNanoseconds else { return 0 }
        if !wait.told, now - wait.startedNanoseconds >= 1_000_000_000, let notice = wait.onLongWait {
            wait.told = true
            notice()
        }
        usleep(useconds_t.random(in: 500...1500))
        return 1
    }
}
