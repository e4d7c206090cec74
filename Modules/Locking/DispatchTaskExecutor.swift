import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A task executor on a Dispatch queue of its own, outside the concurrency runtime's cooperative
/// pool (SE-0417 task executor preference): work that may block a thread runs here, so that the pool's
/// few threads (one per core) stay free for everything else. Default actors the work calls run here
/// too. The loopback server runs its handlers here, so that a process whose cooperative threads are
/// all busy still answers requests; the app runs its store calls here, which wait on a lock or, on
/// PostgreSQL, on the network.
///
/// A thread that hands work over can keep it: inside ``runningNextJobHere(_:)`` the first job given to
/// any such executor (a task started, or a continuation resumed) runs at once on the calling thread
/// instead of waking one of the queue's, saving two thread switches.
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

    /// Runs `job` on the queue, or at once on this thread inside ``runningNextJobHere(_:)``.
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        if pthread_getspecific(Self.runsHere) != nil {
            // Once only: what the job itself hands over meanwhile goes to the queues, so jobs never nest.
            pthread_setspecific(Self.runsHere, nil)
            job.runSynchronously(on: executor)
            return
        }
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Runs `body`; the first job it gives any ``DispatchTaskExecutor`` runs on this thread, before that
    /// hand-over returns, until it next waits. For threads that hold no lock and do no other work
    /// meanwhile: an event loop's thread between events, a thread whose work is done.
    @discardableResult
    package static func runningNextJobHere<Value>(_ body: () throws -> Value) rethrows -> Value {
        let outer = pthread_getspecific(runsHere)
        pthread_setspecific(runsHere, UnsafeRawPointer(bitPattern: 1))
        defer { pthread_setspecific(runsHere, outer) }
        return try body()
    }

    /// The thread's flag that its next job runs here (any non-nil value).
    private static let runsHere: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}
