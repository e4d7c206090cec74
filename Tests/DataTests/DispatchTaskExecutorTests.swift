import Foundation
import TestSupport
import Testing

import class Locking.DispatchTaskExecutor

/// The executor that server handlers and store calls run on: its own queue's threads, except the one job
/// a thread hands over inside `runningNextJobHere`, which runs on that thread at once.
@Suite(.timeLimit(.minutes(1))) struct DispatchTaskExecutorTests {
    /// Where each job ran: on the handing-over thread or not, and whether the hand-over had returned.
    final class Runs: Sendable {
        let runs = Locked<[String: (onCaller: Bool, afterHandOver: Bool)]>([:])
        let handedOver = Locked(false)

        func record(_ name: String, caller: pthread_t) {
            let onCaller = pthread_equal(caller, pthread_self()) != 0
            let after = handedOver.withLock { $0 }
            runs.withLock { $0[name] = (onCaller, after) }
        }

        func wait(for count: Int) async throws {
            while runs.withLock({ $0.count }) < count { try await Task.sleep(for: .milliseconds(2)) }
        }
    }

    @Test func theFirstJobHandedOverRunsOnTheCallingThreadBeforeTheHandOverReturnsTheNextOnTheQueue() async throws {
        let executor = DispatchTaskExecutor(label: "hardtack.tests.inline")
        let runs = Runs()
        try await DedicatedThread.run {
            let caller = pthread_self()
            DispatchTaskExecutor.runningNextJobHere {
                Task(executorPreference: executor) { runs.record("first", caller: caller) }
                Task(executorPreference: executor) { runs.record("second", caller: caller) }
                runs.handedOver.withLock { $0 = true }
            }
            Task(executorPreference: executor) { runs.record("outside", caller: caller) }
        }
        try await runs.wait(for: 3)
        let seen = runs.runs.withLock { $0 }
        #expect(seen["first"]?.onCaller == true && seen["first"]?.afterHandOver == false)
        #expect(seen["second"]?.onCaller == false)
        #expect(seen["outside"]?.onCaller == false)
    }

    @Test func anInnerHandOverGivingNoJobLeavesTheOuterOneToRunHere() async throws {
        let executor = DispatchTaskExecutor(label: "hardtack.tests.inline-nested")
        let runs = Runs()
        try await DedicatedThread.run {
            let caller = pthread_self()
            DispatchTaskExecutor.runningNextJobHere {
                DispatchTaskExecutor.runningNextJobHere {}
                Task(executorPreference: executor) { runs.record("after inner", caller: caller) }
                runs.handedOver.withLock { $0 = true }
            }
        }
        try await runs.wait(for: 1)
        #expect(runs.runs.withLock { $0["after inner"]?.onCaller } == true)
    }

    @Test func aJobRunHereThatWaitsGoesOnOnTheQueue() async throws {
        let executor = DispatchTaskExecutor(label: "hardtack.tests.inline-wait")
        let runs = Runs()
        try await DedicatedThread.run {
            let caller = pthread_self()
            DispatchTaskExecutor.runningNextJobHere {
                Task(executorPreference: executor) {
                    runs.record("before", caller: caller)
                    try? await Task.sleep(for: .milliseconds(20))
                    runs.record("after", caller: caller)
                }
                runs.handedOver.withLock { $0 = true }
            }
        }
        try await runs.wait(for: 2)
        let seen = runs.runs.withLock { $0 }
        #expect(seen["before"]?.onCaller == true && seen["before"]?.afterHandOver == false)
        #expect(seen["after"]?.onCaller == false)
    }
}
