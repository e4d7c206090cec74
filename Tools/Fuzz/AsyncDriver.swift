#if HARDTACK_FUZZ
    import Dispatch

    /// Runs async work for libFuzzer's synchronous callback on one long-lived task, and returns only
    /// once the work's closure has been released.
    ///
    /// With a new `Task` per input, the task could still be tearing itself down on another thread when
    /// the callback returned, and libFuzzer runs LeakSanitizer right after an input whose allocations
    /// and frees do not balance: once in 573,596 inputs it reported a leak that did not reproduce on
    /// its own, most likely such memory in flight. One task that lives for the whole run has released
    /// everything an input allocated before it signals.
    final class AsyncDriver: @unchecked Sendable {
        // Safe without a lock: `work` is written by the caller only while the task waits on `ready`,
        // and read and cleared by the task only between `ready` and `done`; the semaphores order the
        // two (each signal happens-before the wait it releases), and `run` is never called concurrently
        // (libFuzzer calls its callback on one thread).
        private var work: (@Sendable () async -> Void)?
        private let ready = DispatchSemaphore(value: 0)
        private let done = DispatchSemaphore(value: 0)

        /// Starts the task that runs the work.
        init() {
            Task.detached { [self] in
                while true {
                    waitForWork()
                    await work?()
                    work = nil
                    done.signal()
                }
            }
        }

        /// Runs `body` on the driver's task and waits until it has finished and been released.
        func run(_ body: @escaping @Sendable () async -> Void) {
            work = body
            ready.signal()
            done.wait()
        }

        /// Blocks the driver's task (and its thread, which does nothing else) until work arrives.
        private func waitForWork() {
            ready.wait()
        }
    }
#endif
