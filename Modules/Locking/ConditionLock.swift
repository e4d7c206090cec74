#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A pthread mutex and a condition variable on it, in one allocation: what `NSCondition` does with three
/// (its object, its mutex and its condition each allocated apart), and `NSLock` with two, for an object
/// made at every request. Without ``wait()`` it is a plain lock.
///
/// A pthread mutex, not Synchronization's `Mutex`, for the reason ``Locked`` gives: ThreadSanitizer sees a
/// pthread mutex's hand-offs. Copies share one mutex and condition, as references to an `NSCondition` would.
///
/// Safety (`@unchecked Sendable`, as `ManagedBuffer` is not `Sendable`): its one field is a `let` reference;
/// the mutex and the condition in the buffer are set up before it is shared, then reached only by address
/// through pthread's calls (never through the buffer's `header`, which would copy the condition), and those
/// calls are made for use from many threads.
package struct ConditionLock: @unchecked Sendable {
    private let storage: Storage

    /// A new, unlocked mutex and its condition.
    package init() {
        storage = Storage.make()
    }

    /// Waits until the mutex is free, then holds it.
    package func lock() {
        storage.withPrimitives { mutex, _ in
            let failure = pthread_mutex_lock(mutex)
            precondition(failure == 0, "pthread_mutex_lock failed")
        }
    }

    /// Lets go of the mutex (held by this thread).
    package func unlock() {
        storage.withPrimitives { mutex, _ in
            let failure = pthread_mutex_unlock(mutex)
            precondition(failure == 0, "pthread_mutex_unlock failed")
        }
    }

    /// Lets go of the mutex (held by this thread) until ``broadcast()`` is called, then holds it again.
    /// It may also return without one (a spurious wake-up): callers wait in a loop on their condition.
    package func wait() {
        storage.withPrimitives { mutex, condition in
            let failure = pthread_cond_wait(condition, mutex)
            precondition(failure == 0, "pthread_cond_wait failed")
        }
    }

    /// Wakes every thread in ``wait()``.
    package func broadcast() {
        storage.withPrimitives { _, condition in _ = pthread_cond_broadcast(condition) }
    }

    /// The buffer holding the condition (its header) and the mutex (its one element), whose addresses stay
    /// put while it lives, as pthread's need; it sets them up when made and tears them down when it goes.
    private final class Storage: ManagedBuffer<pthread_cond_t, pthread_mutex_t> {
        static func make() -> Storage {
            // `create` makes an instance of the class it is called on.
            let storage = Storage.create(minimumCapacity: 1) { _ in pthread_cond_t() } as! Storage
            storage.withUnsafeMutablePointers { condition, mutex in
                mutex.initialize(to: pthread_mutex_t())
                let failures = (pthread_mutex_init(mutex, nil), pthread_cond_init(condition, nil))
                precondition(failures == (0, 0), "the pthread mutex or condition could not be set up")
            }
            return storage
        }

        @inline(__always)
        func withPrimitives<T>(
            _ body: (UnsafeMutablePointer<pthread_mutex_t>, UnsafeMutablePointer<pthread_cond_t>) -> T
        ) -> T {
            withUnsafeMutablePointers { condition, mutex in body(mutex, condition) }
        }

        deinit {
            withUnsafeMutablePointers { condition, mutex in
                _ = pthread_cond_destroy(condition)
                _ = pthread_mutex_destroy(mutex)
                _ = mutex.deinitialize(count: 1)
            }
        }
    }
}
