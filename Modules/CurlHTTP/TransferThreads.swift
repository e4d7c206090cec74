import Foundation

/// The threads blocking curl transfers run on. A thread that finished a transfer waits up to
/// ``keepAlive`` seconds for the next instead of ending, so a busy client does not start (and tear down)
/// a thread per request; a transfer never waits for a thread: with none idle, a new one starts, as many
/// as there are transfers at once.
final class TransferThreads: Sendable {
    /// The threads every client shares.
    static let shared = TransferThreads(keepAlive: 10)

    /// Seconds an idle thread waits for work before it ends.
    let keepAlive: TimeInterval
    private let condition = NSCondition()
    // Safety: read and written only while `condition` is locked.
    private nonisolated(unsafe) var jobs: [@Sendable () -> Void] = []
    // Safety: as `jobs`. The threads waiting for a job.
    private nonisolated(unsafe) var waiting = 0

    /// Threads that wait `keepAlive` seconds for work.
    init(keepAlive: TimeInterval) {
        self.keepAlive = keepAlive
    }

    /// Runs `job` on an idle thread, or a new one.
    func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        // Each waiting thread takes one job; a job beyond them gets a thread of its own.
        let enoughWaiting = waiting >= jobs.count
        if enoughWaiting { condition.signal() }
        condition.unlock()
        if !enoughWaiting {
            let thread = Thread { [self] in work() }
            thread.name = "hardtack.http"
            thread.start()
        }
    }

    /// A thread's life: jobs while there are any, then waiting, until a wait runs out.
    private func work() {
        condition.lock()
        while true {
            if !jobs.isEmpty {
                let job = jobs.removeFirst()
                condition.unlock()
                job()
                condition.lock()
                continue
            }
            waiting += 1
            let signalled = condition.wait(until: Date(timeIntervalSinceNow: keepAlive))
            waiting -= 1
            if !signalled && jobs.isEmpty { break }
        }
        condition.unlock()
    }
}
