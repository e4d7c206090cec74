import Dispatch
import Foundation
import PostgreSQLStore
import Testing

/// The gate that keeps the instance locks' checks out of the process's exit: closing it shuts it at
/// once and waits for a check under way, and nothing passes after.
@Suite(.timeLimit(.minutes(3))) struct PostgreSQLExitGateTests {
    @Test func anOpenGateRunsWhatPasses() {
        let gate = PostgreSQLExitGate()
        #expect(gate.pass { 7 } == 7)
        var ran = false
        #expect(gate.passes { ran = true })
        #expect(ran)
    }

    @Test func closingShutsAtOnceAndWaitsForACheckUnderWay() {
        let gate = PostgreSQLExitGate()
        let entered = DispatchSemaphore(value: 0)
        let finish = DispatchSemaphore(value: 0)
        let checkEnded = DispatchSemaphore(value: 0)
        let closed = DispatchSemaphore(value: 0)
        let order = Order()
        Thread.detachNewThread {
            _ = gate.pass { () -> Void? in
                entered.signal()
                finish.wait()
                order.note("check ended")
            }
            checkEnded.signal()
        }
        entered.wait()
        Thread.detachNewThread {
            gate.close()
            order.note("closed")
            closed.signal()
        }
        // While the closer waits for the check, nothing new gets in (with a lock that lets readers in
        // past a waiting writer, checks out of step would hold the exit for as long as they kept coming).
        var shut = false
        for _ in 0..<1000 where !shut {
            var ran = false
            shut = !gate.passes { ran = true }
            #expect(shut != ran)
            if !shut { usleep(10_000) }
        }
        #expect(shut, "the gate was still open 10 s after close() was called")
        let closedEarly = closed.wait(timeout: .now() + .milliseconds(200)) == .success
        #expect(!closedEarly, "close() returned while a check was under way")
        finish.signal()
        checkEnded.wait()
        if !closedEarly { closed.wait() }
        #expect(order.events == ["check ended", "closed"])
        #expect(gate.pass { 1 } == nil)
    }
}

/// The order in which threads noted what they did.
private final class Order: Sendable {
    private let lock = NSLock()
    // Safety: read and written only while `lock` is held.
    private nonisolated(unsafe) var noted: [String] = []

    func note(_ event: String) {
        lock.lock()
        defer { lock.unlock() }
        noted.append(event)
    }

    var events: [String] {
        lock.lock()
        defer { lock.unlock() }
        return noted
    }
}
