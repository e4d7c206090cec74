#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import Locking
import Testing

/// Values kept once per thread: each thread has a number of its own while it lives (given back when it
/// ends), a copy of its own, and every copy is reached for a total.
@Suite struct PerThreadTests {
    @Test func liveThreadsHoldDistinctNumbersAndKeepThem() {
        let numbers = Locked<[Int: [Int]]>([:])
        let allStarted = DispatchGroup()
        let release = DispatchSemaphore(value: 0)
        for _ in 0..<8 { allStarted.enter() }
        let finished = DispatchGroup()
        for index in 0..<8 {
            finished.enter()
            Thread.detachNewThread {
                let first = ThreadNumber.current
                allStarted.leave()
                // Every thread alive at once: none may hold another's number.
                release.wait()
                numbers.withLock { $0[index] = [first, ThreadNumber.current] }
                finished.leave()
            }
        }
        allStarted.wait()
        for _ in 0..<8 { release.signal() }
        finished.wait()
        let seen = numbers.withLock { $0 }
        #expect(seen.count == 8)
        #expect(seen.values.allSatisfy { $0[0] == $0[1] }, "a thread keeps its number")
        #expect(Set(seen.values.map { $0[0] }).count == 8, "live threads hold distinct numbers")
    }

    @Test func aThreadThatEndedGivesItsNumberBack() throws {
        // Threads one after another, each joined (ended, its number given back) before the next starts.
        final class Box: @unchecked Sendable {
            // Safety: written by the thread before it ends, read after pthread_join.
            var number = -1
        }
        var numbers = Set<Int>()
        for _ in 0..<50 {
            let box = Box()
            var thread = pthread_t()
            let started = pthread_create(&thread, nil, { context in
                let box = Unmanaged<Box>.fromOpaque(context!).takeUnretainedValue()
                box.number = ThreadNumber.current
                return nil
            }, Unmanaged.passUnretained(box).toOpaque())
            try #require(started == 0)
            pthread_join(thread, nil)
            numbers.insert(box.number)
        }
        // Other tests' threads may come and go meanwhile; fifty joined threads alone would take one number.
        #expect(numbers.count < 10)
    }

    @Test func eachThreadChangesItsOwnCopyAndForEachReachesThemAll() {
        let counts = PerThread(copies: 16) { 0 }
        let copiesUsed = Locked<Set<Int>>([])
        // Four threads alive at once, each counting in the copy its number names.
        let allCounting = DispatchGroup()
        for _ in 0..<4 { allCounting.enter() }
        let ended = onThreads(4) { _ in
            copiesUsed.withLock { _ = $0.insert(counts.currentCopy) }
            for _ in 0..<10_000 { counts.withLock { $0 += 1 } }
            allCounting.leave()
            allCounting.wait()
        }
        #expect(ended, "every thread ended in time")
        var total = 0
        var changed = Set<Int>()
        var index = 0
        counts.forEach { count in
            total += count
            if count > 0 { changed.insert(index) }
            index += 1
        }
        #expect(total == 40_000, "no count lost")
        #expect(changed == copiesUsed.withLock { $0 }, "each thread counted in its own copy, and only there")
        #expect(changed.count >= 2, "live threads do not all share one copy")
    }

    @Test func aCopyTakenOnOneThreadIsReachedFromAnother() {
        let values = PerThread(copies: 16) { [Int]() }
        let copy = Locked(-1)
        let ended = onThreads(1) { _ in
            values.withLock { $0.append(1) }
            copy.withLock { $0 = values.currentCopy }
        }
        #expect(ended, "every thread ended in time")
        let home = copy.withLock { $0 }
        values.withLock(copy: home) { $0.append(2) }
        #expect(values.withLock(copy: home) { $0 } == [1, 2])
    }

    @Test func threadsSharingOneCopyLoseNothing() {
        // More threads than copies: they share, under the copy's lock.
        let counts = PerThread(copies: 1) { [Int]() }
        let ended = onThreads(6) { index in
            for value in 0..<2_000 { counts.withLock { $0.append(index * 10_000 + value) } }
        }
        #expect(ended, "every thread ended in time")
        var all: [Int] = []
        counts.forEach { all += $0 }
        #expect(all.count == 12_000)
        #expect(Set(all).count == 12_000)
    }

    @Test func theCopiesAreMadeAndLetGoOf() {
        final class Tracked: Sendable {
            let gone: @Sendable () -> Void
            init(gone: @escaping @Sendable () -> Void) { self.gone = gone }
            deinit { gone() }
        }
        let released = Locked(0)
        var made = 0
        do {
            let copies = PerThread(copies: 5) { () -> Tracked in
                made += 1
                return Tracked { released.withLock { $0 += 1 } }
            }
            copies.withLock { _ in }
        }
        #expect(made == 5)
        #expect(released.withLock { $0 } == 5, "every copy let go of with the value")
    }
}
