import Foundation
import Locking
import Testing

/// The one-allocation pthread lock: ``ConditionLock`` lets one thread at a time in, and a waiting thread
/// sleep until another broadcasts.
@Suite(.timeLimit(.minutes(1))) struct ConditionLockTests {
    /// A counter that is not atomic: increments lost without a lock around them would show in its total.
    private final class Tally: @unchecked Sendable {
        // Safety: read and written only while the test's lock is held, or after every thread ended.
        var count = 0
        var inside = 0
        var most = 0
    }

    @Test func itAndItsCopiesLetOneThreadInAtATimeAndLoseNoIncrement() {
        let lock = ConditionLock()
        // Half the threads lock through a copy: copies share the one mutex.
        let copy = lock
        let tally = Tally()
        onThreads(4) { index in
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
        #expect(tally.count == 80_000, "no increment lost")
        #expect(tally.most == 1, "never two threads inside")
    }

    @Test func aWaiterSleepsUntilABroadcastAfterTheChangeItWaitsFor() {
        let lock = ConditionLock()
        let tally = Tally()
        let seen = Tally()
        // Three waiters, each sleeping until the count reaches 1, which a fourth thread sets after a pause.
        onThreads(4) { index in
            if index == 0 {
                Thread.sleep(forTimeInterval: 0.05)
                lock.lock()
                tally.count = 1
                lock.broadcast()
                lock.unlock()
                return
            }
            lock.lock()
            while tally.count == 0 { lock.wait() }
            seen.count += tally.count
            lock.unlock()
        }
        #expect(seen.count == 3, "every waiter woke and saw the change")
    }
}
