import Foundation
import Locking
import Testing

/// The one-allocation pthread mutex and condition: ``ConditionLock`` lets one thread at a time in, and a
/// waiting thread sleep, its mutex let go of, until another broadcasts.
@Suite(.timeLimit(.minutes(3))) struct ConditionLockTests {
    /// Counters that are not atomic: increments lost without a lock around them would show in their totals.
    private final class Tally: @unchecked Sendable {
        // Safety: read and written only while the test's lock is held, or after every thread ended.
        var count = 0
        var inside = 0
        var most = 0
        var waiting = 0
        var woken = 0
    }

    @Test func itAndItsCopiesLetOneThreadInAtATimeAndLoseNoIncrement() {
        let lock = ConditionLock()
        // Half the threads lock through a copy: copies share the one mutex.
        let copy = lock
        let tally = Tally()
        let ended = onThreads(4) { index in
            let mine = index.isMultiple(of: 2) ? lock : copy
            for _ in 0..<20_000 {
                mine.lock()
                tally.inside += 1
                tally.most = max(tally.most, tally.inside)
                tally.count += 1
                tally.inside -= 1
                mine.unlock()
            }
        }
        #expect(ended, "every thread ended in time")
        #expect(tally.count == 80_000, "no increment lost")
        #expect(tally.most == 1, "never two threads inside")
    }

    @Test func waitersLetGoOfTheMutexAndWakeAtTheBroadcastAfterTheChange() {
        let lock = ConditionLock()
        let tally = Tally()
        // Three waiters, each counted in under the lock, then asleep until the count is set. The fourth
        // thread waits (on the same condition) until all three are in, which it can see only if each let go
        // of the mutex as it slept, then sets the count and broadcasts.
        let ended = onThreads(4) { index in
            lock.lock()
            defer { lock.unlock() }
            if index == 0 {
                while tally.waiting < 3 { lock.wait() }
                tally.count = 1
                lock.broadcast()
                return
            }
            tally.waiting += 1
            lock.broadcast()
            while tally.count == 0 { lock.wait() }
            tally.woken += 1
        }
        #expect(ended, "no thread was left waiting")
        #expect(tally.woken == 3, "every waiter woke and saw the change")
    }
}
