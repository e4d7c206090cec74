import Dispatch
import Foundation
import PostgreSQLStore
import Testing

/// The gate that keeps the instance locks' checks out of the process's exit: closing it waits for a
/// check under way, and no check runs after.
@Suite struct PostgreSQLExitGateTests {
    @Test func anOpenGateRunsWhatPasses() {
        let gate = PostgreSQLExitGate()
        #expect(gate.pass { 7 } == 7)
        #expect(gate.pass { 8 } == 8)
    }

    @Test func closingWaitsForACheckUnderWayAndNothingPassesAfter() {
        let gate = PostgreSQLExitGate()
        let entered = DispatchSemaphore(value: 0)
        let finish = DispatchSemaphore(value: 0)
        let checkEnded = DispatchSemaphore(value: 0)
        let closed = DispatchSemaphore(value: 0)
        let order = Order()
        Thread.detachNewThread {
            _ = gate.pass {
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
        // The closer is held while the check runs.
        let closedEarly = closed.wait(timeout: .now() + .milliseconds(200)) == .success
        #expect(!closedEarly)
        finish.signal()
        checkEnded.wait()
        if !closedEarly { closed.wait() }
        #expect(order.events == ["check ended", "closed"])

        var ran = false
        #expect(gate.pass { ran = true } == nil)
        #expect(!ran)
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
