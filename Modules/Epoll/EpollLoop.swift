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
/// `holds`, `passEnd`) is touched only by the loop's thread: the methods that change them say so, and check it; one
/// thread runs the loop at a time, since a new thread starts only after `threadRuns` turned false under
/// `lock`, which the ending thread does as its last act on them.
package final class EpollLoop: TaskExecutor, @unchecked Sendable {
    /// What a watched descriptor is ready for.
    package struct Events: OptionSet, Sendable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Bytes to read, a connection to accept, or the peer's end.
        package static let readable = Events(rawValue: hardtack_epoll_readable)
        /// Room to write.
        package static let writable = Events(rawValue: hardtack_epoll_writable)
        /// The peer hung up or the descriptor failed (always reported, whatever was asked).
        package static let closed = Events(rawValue: hardtack_epoll_closed)
    }

    /// A piece of work: a task's job, or a closure.
    private enum Work {
        case job(UnownedJob)
        case closure(() -> Void)
    }

    /// A descriptor's handler.
    private final class Watcher {
        let handler: (Events) -> Void
        var events: Events
        init(handler: @escaping (Events) -> Void, events: Events) {
            self.handler = handler
            self.events = events
        }
    }

    /// The thread's name (at most 15 bytes show).
    package let name: String
    /// Nanoseconds the thread waits, neither held nor given work, before it ends.
    private let lingerNanoseconds: UInt64
    private let epoll: Int32
    private let wake: Int32
    private let lock = NSLock()
    private var inbound: [Work] = []
    private var spareInbound: [Work] = []
    private var sleeping = false
    private var woken = false
    private var threadRuns = false
    private var local: [Work] = []
    private var running: [Work] = []
    private var watchers: [Watcher?] = []
    private var timers = TimerHeap()
    private var holds = 0
    private var passEnd: [(key: ObjectIdentifier, body: () -> Void)] = []
    private let retired = Atomic(false)

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

    /// Calls `handler` on the loop's thread whenever `descriptor` is ready for any of `events` (level-
    /// triggered: again at each pass while it stays ready), or closed. `false` when the kernel refused it
    /// (the descriptor is not one epoll watches, or is watched already). Loop's thread only.
    package func watch(_ descriptor: Int32, for events: Events, _ handler: @escaping (Events) -> Void) -> Bool {
        precondition(isCurrent, "EpollLoop.watch is for the loop's thread")
        guard descriptor >= 0, hardtack_epoll_add(epoll, descriptor, events.rawValue) == 0 else { return false }
        if watchers.count <= Int(descriptor) {
            watchers += Array(repeating: nil, count: Int(descriptor) + 1 - watchers.count)
        }
        watchers[Int(descriptor)] = Watcher(handler: handler, events: events)
        return true
    }

    /// Changes what `descriptor`, watched, is waited for; `false` when the kernel no longer has it (it was
    /// closed, and its number maybe reused) and it cannot be added again: it is then no longer watched.
    /// Loop's thread only.
    @discardableResult
    package func change(_ descriptor: Int32, to events: Events) -> Bool {
        precondition(isCurrent, "EpollLoop.change is for the loop's thread")
        guard descriptor >= 0, Int(descriptor) < watchers.count, let watcher = watchers[Int(descriptor)] else {
            return false
        }
        guard watcher.events != events else { return true }
        if hardtack_epoll_modify(epoll, descriptor, events.rawValue) == 0
            || (errno == ENOENT
                && hardtack_epoll_add(epoll, descriptor, events.rawValue) == 0)
        {
            watcher.events = events
            return true
        }
        watchers[Int(descriptor)] = nil
        return false
    }

    /// Stops watching `descriptor` (before it is closed; a descriptor closed first is forgotten by the
    /// kernel, and this then only forgets its handler). Loop's thread only.
    package func unwatch(_ descriptor: Int32) {
        precondition(isCurrent, "EpollLoop.unwatch is for the loop's thread")
        guard descriptor >= 0, Int(descriptor) < watchers.count, watchers[Int(descriptor)] != nil else { return }
        watchers[Int(descriptor)] = nil
        _ = hardtack_epoll_remove(epoll, descriptor)
    }

    /// Whether `descriptor` is watched. Loop's thread only.
    package func isWatching(_ descriptor: Int32) -> Bool {
        descriptor >= 0 && Int(descriptor) < watchers.count && watchers[Int(descriptor)] != nil
    }

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

    private func submit(_ work: Work) {
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

    private func startThread() {
        guard isWorking else {
            // No descriptors, no loop: what was handed over runs on Dispatch's threads, one at a time.
            return DispatchQueue.global().async { [self] in fallback() }
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let started = pthread_create(
            &thread, nil,
            { raw in
                // The thread's reference, taken at its start and let go of when it ends.
                let loop = Unmanaged<EpollLoop>.fromOpaque(raw!).takeRetainedValue()
                loop.run()
                return nil
            }, context)
        if started == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<EpollLoop>.fromOpaque(context).release()
            DispatchQueue.global().async { [self] in fallback() }
        }
    }

    /// Runs what was handed over, without a loop (no descriptors, or no thread to be had).
    private func fallback() {
        pthread_setspecific(Self.currentKey, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.currentKey, nil) }
        while true {
            lock.lock()
            if inbound.isEmpty {
                threadRuns = false
                lock.unlock()
                return
            }
            swap(&inbound, &spareInbound)
            lock.unlock()
            local.append(contentsOf: spareInbound)
            spareInbound.removeAll(keepingCapacity: true)
            runLocal(rounds: .max)
            runPassEnd()
        }
    }

    /// The thread's life: run the work handed over, the timers due and the handlers of ready descriptors,
    /// then wait for more; end once idle for the linger.
    private func run() {
        pthread_setspecific(Self.currentKey, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.currentKey, nil) }
        hardtack_name_thread(name)
        var readyDescriptors = [Int32](repeating: -1, count: 128)
        var readyEvents = [UInt32](repeating: 0, count: 128)
        var idleSince = Self.now()
        while true {
            takeInbound()
            runLocal(rounds: 8)
            let now = Self.now()
            while let body = timers.takeDue(now: now) { body() }
            runLocal(rounds: 8)
            runPassEnd()
            var timeout: Int32 = -1
            if !local.isEmpty {
                timeout = 0
            } else if let deadline = timers.nextDeadline() {
                timeout = Self.milliseconds(from: now, to: deadline)
            }
            if holds == 0, timeout != 0 {
                let idle = now &- idleSince
                if idle >= lingerNanoseconds {
                    lock.lock()
                    if inbound.isEmpty {
                        threadRuns = false
                        lock.unlock()
                        return
                    }
                    lock.unlock()
                    continue
                }
                let left = Self.milliseconds(from: now, to: idleSince &+ lingerNanoseconds)
                timeout = timeout < 0 ? left : min(timeout, left)
            }
            lock.lock()
            if !inbound.isEmpty { timeout = 0 }
            sleeping = timeout != 0
            lock.unlock()
            let count = readyDescriptors.withUnsafeMutableBufferPointer { descriptors in
                readyEvents.withUnsafeMutableBufferPointer { events in
                    hardtack_epoll_wait(
                        epoll, descriptors.baseAddress, events.baseAddress, Int32(descriptors.count), timeout)
                }
            }
            if timeout != 0 {
                lock.lock()
                sleeping = false
                woken = false
                lock.unlock()
            }
            if count > 0 {
                // A handler may close a descriptor whose number a new one then takes within this batch: that
                // number's event, if any, goes to the new one's handler as a spurious readiness, which every
                // handler here tolerates (its reads and writes do not block).
                for index in 0..<Int(count) {
                    let descriptor = readyDescriptors[index]
                    let ready = Events(rawValue: readyEvents[index])
                    if descriptor == wake {
                        var value: UInt64 = 0
                        _ = read(wake, &value, 8)
                    } else if Int(descriptor) < watchers.count, let watcher = watchers[Int(descriptor)] {
                        watcher.handler(ready)
                    }
                }
            }
            if holds > 0 || count > 0 || !local.isEmpty { idleSince = Self.now() }
        }
    }

    /// Runs the work asked for at the end of this pass (``atEndOfPass(key:_:)``).
    private func runPassEnd() {
        guard !passEnd.isEmpty else { return }
        let due = passEnd
        passEnd.removeAll(keepingCapacity: true)
        for (_, body) in due { body() }
    }

    /// Moves the work handed over from other threads to the local queue.
    private func takeInbound() {
        lock.lock()
        swap(&inbound, &spareInbound)
        lock.unlock()
        guard !spareInbound.isEmpty else { return }
        local.append(contentsOf: spareInbound)
        spareInbound.removeAll(keepingCapacity: true)
    }

    /// Runs the local queue, and what that work queues, for up to `rounds` rounds (the rest waits for the
    /// next pass, so that the descriptors are not starved).
    private func runLocal(rounds: Int) {
        var round = 0
        while !local.isEmpty, round < rounds {
            round += 1
            swap(&local, &running)
            let executor = asUnownedTaskExecutor()
            for work in running {
                switch work {
                case .job(let job): job.runSynchronously(on: executor)
                case .closure(let body): body()
                }
            }
            running.removeAll(keepingCapacity: true)
        }
    }

    /// Milliseconds from `now` to `deadline`, rounded up (0 when it passed), for `epoll_wait`.
    private static func milliseconds(from now: UInt64, to deadline: UInt64) -> Int32 {
        guard deadline > now else { return 0 }
        return Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
    }

    /// The thread's loop, for ``current``.
    private static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}
