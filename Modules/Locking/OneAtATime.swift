/// Lets one task at a time run a piece of async work; the others wait their turn, in the order they came,
/// without holding a thread.
///
/// A waiting task that is cancelled still waits for its turn: the work it then runs sees the cancellation.
package final class OneAtATime: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// Creates a gate no task holds.
    package init() {}

    /// Runs `body` once no other task runs one here, and lets the next in.
    package func run<Result, Failure: Error>(_ body: () async throws(Failure) -> Result) async throws(Failure) -> Result {
        await enter()
        defer { leave() }
        return try await body()
    }

    private func enter() async {
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.busy {
                    state.waiting.append(turn)
                    return false
                }
                state.busy = true
                return true
            }
            if now { turn.resume() }
        }
    }

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
