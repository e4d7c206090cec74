import Dispatch

/// A task executor on a Dispatch queue of its own, outside the concurrency runtime's cooperative
/// pool (SE-0417 task executor preference): work that may block a thread runs here, so that the pool's
/// few threads (one per core) stay free for everything else. Default actors the work calls run here
/// too. The app runs its store calls here, which wait on a lock or, on PostgreSQL, on the network.
package final class DispatchTaskExecutor: TaskExecutor {
    private let queue: DispatchQueue
    private let marker = DispatchSpecificKey<Bool>()

    /// Creates an executor whose jobs run concurrently on a queue named `label`.
    package init(label: String) {
        queue = DispatchQueue(label: label, attributes: .concurrent)
        queue.setSpecific(key: marker, value: true)
    }

    /// Whether the calling code runs on this executor's queue.
    package var isCurrent: Bool { DispatchQueue.getSpecific(key: marker) == true }

    /// Runs `job` on the queue.
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
