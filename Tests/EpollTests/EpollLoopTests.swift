import Epoll
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The event loop on its own: work handed over from any thread runs on its thread, tasks that prefer it
/// run there across their waits, timers fire in order, watched descriptors call their handlers, and the
/// thread ends when idle and starts again for the next work.
@Suite(.timeLimit(.minutes(3))) struct EpollLoopTests {
    /// Runs `body` on `loop`'s thread and returns what it returns.
    static func onLoop<Value: Sendable>(_ loop: EpollLoop, _ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in loop.execute { continuation.resume(returning: body()) } }
    }

    /// Looks every 5 ms until `done` holds, for at most 30 s (the test's own `#expect` then says whether it
    /// did): a bound only against a hang, within the suite's limit, since under a sanitizer on a busy
    /// machine the loop's thread may wait seconds for a core.
    static func waitUntil(_ done: () -> Bool) async throws {
        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
        while !done(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
    }

    @Test func workHandedOverRunsOnTheLoopsThreadInOrder() async {
        let loop = EpollLoop(name: "test.order")
        let seen = Shared<[Int]>([])
        let onThread = await Self.onLoop(loop) {
            loop.isCurrent && EpollLoop.current === loop
        }
        #expect(onThread)
        #expect(!loop.isCurrent && EpollLoop.current == nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            for index in 0..<100 { loop.execute { seen.withLock { $0.append(index) } } }
            loop.execute { continuation.resume() }
        }
        #expect(seen.withLock { $0 } == Array(0..<100))
    }

    @Test func workQueuedFromTheLoopRunsAfterTheCurrentWork() async {
        let loop = EpollLoop(name: "test.nested")
        let order = await Self.onLoop(loop) { () -> [String] in
            let order = Shared<[String]>([])
            loop.execute { order.withLock { $0.append("inner") } }
            order.withLock { $0.append("outer") }
            return order.withLock { $0 }
        }
        #expect(order == ["outer"])
        let later = await Self.onLoop(loop) { "after" }
        #expect(later == "after")
    }

    @Test func aTaskThatPrefersTheLoopRunsThereAcrossItsWaits() async {
        let loop = EpollLoop(name: "test.task")
        let elsewhere = DispatchQueue(label: "test.elsewhere")
        let placesSeen = await Task(executorPreference: loop) { () -> [Bool] in
            var places = [loop.isCurrent]
            for _ in 0..<20 {
                // Resumed from another thread: the task comes back to the loop.
                await withCheckedContinuation { continuation in elsewhere.async { continuation.resume() } }
                places.append(loop.isCurrent)
            }
            return places
        }.value
        #expect(placesSeen.count == 21)
        #expect(placesSeen.allSatisfy { $0 })
    }

    @Test func timersFireInDeadlineOrderAndACancelledOneNever() async {
        let loop = EpollLoop(name: "test.timers")
        let fired = Shared<[String]>([])
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.execute {
                loop.schedule(after: .milliseconds(30)) { fired.withLock { $0.append("30") } }
                let cancelled = loop.schedule(after: .milliseconds(20)) { fired.withLock { $0.append("cancelled") } }
                loop.schedule(after: .milliseconds(10)) { fired.withLock { $0.append("10") } }
                loop.schedule(after: .zero) { fired.withLock { $0.append("0") } }
                loop.cancel(cancelled)
                loop.schedule(after: .milliseconds(60)) { continuation.resume() }
            }
        }
        #expect(fired.withLock { $0 } == ["0", "10", "30"])
    }

    @Test func aWatchedDescriptorCallsItsHandlerWhileReadableAndNotOnceUnwatched() async throws {
        let loop = EpollLoop(name: "test.watch")
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let (reader, writer) = (ends[0], ends[1])
        defer {
            close(reader)
            close(writer)
        }
        _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) | O_NONBLOCK)
        let received = Shared<[UInt8]>([])
        // Held: a watched descriptor alone does not keep the thread past its linger (a kept connection must
        // not), and a test starved of Swift's threads for longer than that would find no thread to hear it.
        let watching = await Self.onLoop(loop) {
            loop.hold()
            return loop.watch(reader, for: .readable) { _ in
                var byte: UInt8 = 0
                while read(reader, &byte, 1) == 1 { received.withLock { $0.append(byte) } }
            }
        }
        #expect(watching)
        var bytes: [UInt8] = [1, 2, 3]
        #expect(write(writer, &bytes, 3) == 3)
        try await Self.waitUntil { received.withLock { $0.count } >= 3 }
        #expect(received.withLock { $0 } == [1, 2, 3])
        await Self.onLoop(loop) { loop.unwatch(reader) }
        var more: UInt8 = 4
        #expect(write(writer, &more, 1) == 1)
        try await Task.sleep(for: .milliseconds(50))
        #expect(received.withLock { $0 } == [1, 2, 3])
        // The byte is still there: no handler read it.
        let stillWatched = await Self.onLoop(loop) {
            loop.release()
            return loop.isWatching(reader)
        }
        #expect(!stillWatched)
    }

    @Test func aWatchedNumberClosedAndReusedIsWatchedAgainWhenChanged() async throws {
        // A descriptor closed without a word leaves the kernel's watch behind it; a new descriptor that gets
        // its number is then no longer watched there, and a change must add it back, not fail in silence.
        let loop = EpollLoop(name: "test.reuse")
        var first: [Int32] = [0, 0]
        #expect(pipe(&first) == 0)
        let number = first[0]
        let readyCount = Shared(0)
        // A pipe's read end is never writable: nothing is heard until it is changed to readable.
        let watched = await Self.onLoop(loop) {
            loop.hold()
            return loop.watch(number, for: .writable) { events in
                var byte: UInt8 = 0
                if events.contains(.readable), read(number, &byte, 1) == 1 { readyCount.withLock { $0 += 1 } }
            }
        }
        #expect(watched)
        // The number goes to another pipe in one step (dup2 closes the old one), so no other thread takes it.
        var second: [Int32] = [0, 0]
        #expect(pipe(&second) == 0)
        #expect(dup2(second[0], number) == number)
        close(second[0])
        close(first[1])
        defer {
            close(number)
            close(second[1])
        }
        let changed = await Self.onLoop(loop) { loop.change(number, to: .readable) }
        #expect(changed)
        var byte: UInt8 = 7
        #expect(write(second[1], &byte, 1) == 1)
        try await Self.waitUntil { readyCount.withLock { $0 } != 0 }
        #expect(readyCount.withLock { $0 } == 1)
        await Self.onLoop(loop) { loop.release() }
    }

    @Test func theThreadEndsAfterItsLingerAndTheNextWorkStartsAnother() async throws {
        let loop = EpollLoop(name: "test.linger", linger: .milliseconds(50))
        let first = await Self.onLoop(loop) { loop.threadIsRunning }
        #expect(first)
        try await Self.waitUntil { !loop.threadIsRunning }
        #expect(!loop.threadIsRunning)
        let second = await Self.onLoop(loop) { loop.isCurrent && loop.threadIsRunning }
        #expect(second)
    }

    @Test func aHeldLoopKeepsItsThreadPastTheLingerUntilReleased() async throws {
        let loop = EpollLoop(name: "test.hold", linger: .milliseconds(20))
        await Self.onLoop(loop) { loop.hold() }
        try await Task.sleep(for: .milliseconds(150))
        #expect(loop.threadIsRunning)
        await Self.onLoop(loop) { loop.release() }
        try await Self.waitUntil { !loop.threadIsRunning }
        #expect(!loop.threadIsRunning)
    }

    /// Threads of their own (not tasks: a task resumed after each of its 50 hand-overs waited behind every
    /// other test's jobs on the cooperative pool, and under a busy suite the 400 waits outlasted the suite's
    /// minute) hand over work and wait for it, 50 times each: first one thread, whose every hand-over finds
    /// the loop idle, then eight at once, which find it asleep and awake. A lost wake-up leaves the loop
    /// asleep until its linger ends (a minute here) unless another thread's hand-over happens to wake it:
    /// each thread waits at most 20 s, counts it and stops, so a lost wake-up fails the test within 20 s
    /// rather than slowing it or hanging it.
    @Test func workFromManyThreadsAtOnceAllRuns() async {
        let loop = EpollLoop(name: "test.many", linger: .seconds(60))
        for threadCount in [1, 8] {
            let count = Shared(0)
            let unanswered = Shared(0)
            let threads = DispatchGroup()
            for _ in 0..<threadCount {
                threads.enter()
                Thread.detachNewThread {
                    defer { threads.leave() }
                    for _ in 0..<50 {
                        let ran = DispatchSemaphore(value: 0)
                        loop.execute {
                            count.withLock { $0 += 1 }
                            ran.signal()
                        }
                        if ran.wait(timeout: .now() + .seconds(20)) == .timedOut {
                            unanswered.withLock { $0 += 1 }
                            return
                        }
                    }
                }
            }
            await withCheckedContinuation { continuation in threads.notify(queue: .global()) { continuation.resume() } }
            #expect(unanswered.withLock { $0 } == 0, "\(threadCount) threads")
            #expect(count.withLock { $0 } == threadCount * 50, "\(threadCount) threads")
        }
    }
}

/// A value shared between the test and the loop's thread, behind a lock.
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func withLock<Result: Sendable>(_ body: (inout sending Value) -> sending Result) -> Result { value.withLock(body) }
}
