import Dispatch

/// A task executor on a Dispatch queue of its own, outside the concurrency runtime's cooperative
/// pool. The loopback server runs its handlers here, so that a process whose cooperative threads are
/// all busy (CPU-bound work, blocking calls) still answers requests; default actors the handler calls,
/// such as the embedded auth server, run here too (SE-0417 task executor preference).
final class DispatchTaskExecutor: TaskExecutor {
    private let queue: DispatchQueue

    /// Creates an executor whose jobs run concurrently on a queue named `label`.
    init(label: String) {
        queue = DispatchQueue(label: label, attributes: .concurrent)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
