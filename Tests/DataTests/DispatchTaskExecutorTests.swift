import Foundation
import Testing

import class Locking.DispatchTaskExecutor

/// The executor that store calls run on: its own queue's threads, across a task's waits.
@Suite(.timeLimit(.minutes(3))) struct DispatchTaskExecutorTests {
    @Test func aTaskThatPrefersItRunsOnItsQueueAcrossItsWaits() async throws {
        let executor = DispatchTaskExecutor(label: "hardtack.tests.executor")
        #expect(!executor.isCurrent)
        let places = await Task(executorPreference: executor) { () -> [Bool] in
            var places = [executor.isCurrent]
            for _ in 0..<5 {
                try? await Task.sleep(for: .milliseconds(2))
                places.append(executor.isCurrent)
            }
            return places
        }.value
        #expect(places == Array(repeating: true, count: 6))
    }
}
