/// Lets one task at a time run a piece of async work; the others wait their turn, in the order they came,
/// without holding a thread.
///
/// Not re-entrant: a body that runs `run` on the same gate waits for itself forever. A waiting task that
/// is cancelled still waits for its turn: the work it then runs sees the cancellation.
package final class OneAtATime: Sendable {
    /// Whether a task holds the gate, and the turns of those waiting, first come first.
    private struct State {
        /// A task runs a body (or has just been given the turn and is about to).
        var busy = false
        /// The waiting tasks' turns, in the order they came (few: a queue's cost does not matter).
        var waiting: [CheckedContinuation<Void, Never>] = []
        /// Those who wait until so many tasks wait (see ``untilWaiting(_:)``).
        var watchers: [(count: Int, seen: CheckedContinuation<Void, Never>)] = []
    }

    /// The gate's state, behind a mutex.
    private let state = Locked(State())

    /// Creates a gate no task holds.
    package init() {}

    /// How many tasks wait for their turn (for tests).
    package var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Returns once at least `count` tasks wait for their turn (for tests: at once if they already do).
    package func untilWaiting(_ count: Int) async {
        await withCheckedContinuation { (seen: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.waiting.count >= count { return true }
                state.watchers.append((count, seen))
                return false
            }
            if now { seen.resume() }
        }
    }

    /// Runs `body` once no other task runs one here, and lets the next in, whether `body` returns or throws.
    package func run<Result, Failure: Error>(_ body: () async throws(Failure) -> Result) async throws(Failure) -> Result {
        await enter()
        defer { leave() }
        return try await body()
    }

    /// Returns once this task has the turn: at once when the gate is free, else when the task before leaves.
    private func enter() async {
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let (now, seen) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                if state.busy {
                    state.waiting.append(turn)
                    let count = state.waiting.count
                    let seen = state.watchers.filter { $0.count <= count }.map(\.seen)
                    state.watchers.removeAll { $0.count <= count }
                    return (false, seen)
                }
                state.busy = true
                return (true, [])
            }
            for watcher in seen { watcher.resume() }
            if now { turn.resume() }
        }
    }

    /// Gives the turn to the first waiting task, or frees the gate. `busy` stays set while the turn passes,
    /// so that a task arriving meanwhile queues behind the waiting ones instead of jumping ahead.
    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
