import Foundation

/// Runs `body` on `count` threads of their own at once (each given its index), and waits for all of them
/// for at most `seconds`: `false` when some had not ended by then (a lock that never lets go, say), so that
/// a test fails rather than hangs (its time limit cannot stop a thread blocked here).
func onThreads(_ count: Int, within seconds: Double = 30, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread.detachNewThread {
            body(index)
            group.leave()
        }
    }
    return group.wait(timeout: .now() + seconds) == .success
}
