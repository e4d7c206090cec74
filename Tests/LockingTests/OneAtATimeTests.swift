import Locking
import Testing

/// One task at a time through the gate: bodies never overlap, every one runs, and a failing body lets the
/// next one in.
@Suite(.timeLimit(.minutes(3))) struct OneAtATimeTests {
    /// A body's failure.
    private struct Refused: Error {}

    @Test func bodiesNeverOverlapAndEveryOneRuns() async {
        let gate = OneAtATime()
        let counts = Locked((inside: 0, most: 0, done: 0))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await gate.run {
                        counts.withLock { $0.inside += 1; $0.most = max($0.most, $0.inside) }
                        try? await Task.sleep(for: .milliseconds(2))
                        counts.withLock { $0.inside -= 1; $0.done += 1 }
                    }
                }
            }
        }
        let final = counts.withLock { $0 }
        #expect(final.most == 1, "at most one body at a time")
        #expect(final.done == 20 && final.inside == 0)
    }

    @Test func aBodyThatThrowsLetsTheNextIn() async throws {
        let gate = OneAtATime()
        await #expect(throws: Refused.self) {
            try await gate.run { () async throws(Refused) -> Int in throw Refused() }
        }
        let answer = await gate.run { 42 }
        #expect(answer == 42, "the gate was let go of after the failure")
    }

    @Test func aCancelledWaiterWaitsForItsTurnThenRunsItsBodyWhichSeesTheCancellation() async throws {
        let gate = OneAtATime()
        let holderIn = AsyncStream<Void>.makeStream()
        let release = AsyncStream<Void>.makeStream()
        let holderDone = Locked(false)
        let holder = Task {
            await gate.run {
                holderIn.continuation.yield()
                for await _ in release.stream { break }
                holderDone.withLock { $0 = true }
            }
        }
        for await _ in holderIn.stream { break }
        let waiter = Task { await gate.run { (holderDone.withLock { $0 }, Task.isCancelled) } }
        await gate.untilWaiting(1)
        #expect(gate.waitingCount == 1, "the waiter queued behind the holder")
        waiter.cancel()
        try await Task.sleep(for: .milliseconds(50))
        #expect(gate.waitingCount == 1, "cancelled, it still waits for its turn")
        release.continuation.yield()
        await holder.value
        let (afterHolder, sawCancellation) = await waiter.value
        #expect(afterHolder, "its body ran only once the holder's had ended")
        #expect(sawCancellation, "and saw that its task was cancelled")
    }
}
