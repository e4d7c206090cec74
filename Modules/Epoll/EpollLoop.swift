internal import CEpoll
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One thread running an event loop over Linux's epoll, as nginx's workers run: it waits for any of the
/// file descriptors it watches, its timers or work handed to it, and runs each handler, timer and job in
/// turn on that one thread. It is a Swift task executor (SE-0417): a task that prefers it runs all its
/// jobs here, so a request's handler, the libraries' callbacks it waits for and its answer share one
/// thread and never wake another.
///
/// Work reaches the loop from any thread through ``execute(_:)`` (and, for tasks, ``enqueue(_:)``): from
/// the loop's own thread it is queued without a lock or a system call; from another, under a lock, with
/// one write to an `eventfd` only when the loop is asleep. Watching descriptors and timers
/// (``watch(_:for:_:)``, ``schedule(after:_:)``) is for the loop's thread only, as are the handlers they
/// run. The thread runs while the loop is held (``hold()``) or has work, and ends after ``linger`` without
/// either; the next work starts another, with the same descriptors and timers.
///
/// Safety (`@unchecked Sendable`): `inbound`, `spareInbound`, `sleeping`, `woken` and `threadRuns` are read
/// and written under `lock` only. Every other mutable field (`local`, `running`, `watchers`, `timers`,
/// `holds`, `passEnd`) is touched only by the loop's thread: the methods that change them say so, and
/// check it; one thread runs the loop at a time, since a new thread starts only after `threadRuns` turned
/// false under `lock`, which the ending thread does as its last act on them. (The fields are internal, not
/// private, for the extensions in the files beside this one: `+Run`, `+Descriptors`, `+Timers`.)
package final class EpollLoop: TaskExecutor, @unchecked Sendable {
    /// A piece of work: a task's job, or a closure.
    enum Work {
        case job(UnownedJob)
        case closure(() -> Void)
    }

    /// The thread's name (at most 15 bytes show).
    package let name: String
    /// Nanoseconds the thread waits, neither held nor given work, before it ends.
    let lingerNanoseconds: UInt64
    let epoll: Int32
    let wake: Int32
    let lock = NSLock()
    var inbound: [Work] = []
    var spareInbound: [Work] = []
    var sleeping = false
    var woken = false
    var threadRuns = false
    var local: [Work] = []
    var running: [Work] = []
    var watchers: [Watcher?] = []
    var timers = TimerHeap()
    var holds = 0
    var passEnd: [(key: ObjectIdentifier, body: () -> Void)] = []
    let retired = Atomic(false)

    /// Whether the system gave the loop its descriptors: a loop without them runs no thread, and its work
    /// runs on Dispatch's threads instead (see ``execute(_:)``), with no timer and no descriptor watched.
    package let isWorking: Bool

    /// A loop whose thread, named `name`, ends after `linger` neither held nor given work.
    package init(name: String, linger: Duration = .seconds(10)) {
        self.name = name
        let (seconds, attoseconds) = linger.components
        lingerNanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        epoll = hardtack_epoll_create()
        wake = hardtack_eventfd_create()
        isWorking = epoll >= 0 && wake >= 0 && hardtack_epoll_add(epoll, wake, hardtack_epoll_readable) == 0
    }

    deinit {
        // No thread runs: it holds the loop while it does.
        if epoll >= 0 { close(epoll) }
        if wake >= 0 { close(wake) }
    }

    /// Whether the loop's owner is done with it (a stopped server's): whoever kept something on it for
    /// the owner's calls (a client's connections) lets go of that.
    package var isRetired: Bool { retired.load(ordering: .acquiring) }

    /// Marks the loop as done with (``isRetired``); work handed to it still runs.
    package func retire() {
        retired.store(true, ordering: .releasing)
    }

    /// Whether the loop's thread runs now.
    package var threadIsRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return threadRuns
    }

    /// The loop whose thread runs the calling code, if any.
    package static var current: EpollLoop? {
        pthread_getspecific(currentKey).map { Unmanaged<EpollLoop>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Whether the calling code runs on this loop's thread.
    package var isCurrent: Bool {
        pthread_getspecific(Self.currentKey) == Unmanaged.passUnretained(self).toOpaque()
    }

    /// Runs `work` on the loop's thread: after the current handler or job when called there, else soon,
    /// waking the loop (or starting its thread) if needed.
    package func execute(_ work: @escaping @Sendable () -> Void) {
        if isCurrent { local.append(.closure(work)) } else { submit(.closure(work)) }
    }

    /// Runs a task's job on the loop's thread (``execute(_:)``'s rules).
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if isCurrent { local.append(.job(job)) } else { submit(.job(job)) }
    }

    /// Keeps the thread running, without work, until as many ``release()``s: a server's loop is held while
    /// it serves. Loop's thread only.
    package func hold() {
        precondition(isCurrent, "EpollLoop.hold() is for the loop's thread")
        holds += 1
    }

    /// Lets go of a ``hold()``; the thread ends after the linger once no hold is left. Loop's thread only.
    package func release() {
        precondition(isCurrent, "EpollLoop.release() is for the loop's thread")
        holds -= 1
    }

    func submit(_ work: Work) {
        lock.lock()
        inbound.append(work)
        var start = false
        var wakeUp = false
        if !threadRuns {
            threadRuns = true
            start = true
        } else if sleeping, !woken {
            woken = true
            wakeUp = true
        }
        lock.unlock()
        if start {
            startThread()
        } else if wakeUp {
            var one: UInt64 = 1
            _ = write(wake, &one, 8)
        }
    }

}
