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
/// A pthread mutex, not Synchronization's `Mutex`, for the reason ``Locked`` gives: ThreadSanitizer sees
/// its hand-offs. Copies share one mutex and condition, as references to an `NSCondition` would.
///
/// Safety (`@unchecked Sendable`, as `ManagedBuffer` cannot be `Sendable`): its storage is never changed
/// after it is made; the mutex and the condition in it are reached only through pthread's calls, which
/// are made for use from many threads.
package struct ConditionLock: @unchecked Sendable {
    private let storage: Storage

    /// A new, unlocked mutex and its condition.
    package init() {
        storage = Storage.make()
    }

    /// Waits until the mutex is free, then holds it.
    package func lock() {
        storage.withPrimitives { mutex, _ in _ = pthread_mutex_lock(mutex) }
    }

    /// Lets go of the mutex (held by this thread).
    package func unlock() {
        storage.withPrimitives { mutex, _ in _ = pthread_mutex_unlock(mutex) }
    }

    /// Lets go of the mutex (held by this thread) until ``broadcast()`` is called, then holds it again.
    /// It may also return without one (a spurious wake-up): callers wait in a loop on their condition.
    package func wait() {
        storage.withPrimitives { mutex, condition in _ = pthread_cond_wait(condition, mutex) }
    }

    /// Wakes every thread in ``wait()``.
    package func broadcast() {
        storage.withPrimitives { _, condition in _ = pthread_cond_broadcast(condition) }
    }

    /// The buffer holding the condition (its header) and the mutex (its one element), whose addresses stay
    /// put while it lives, as pthread's need; it sets them up when made and tears them down when it goes.
    private final class Storage: ManagedBuffer<pthread_cond_t, pthread_mutex_t> {
        static func make() -> Storage {
            let buffer = Storage.create(minimumCapacity: 1) { _ in pthread_cond_t() }
            // `create` makes an instance of the class it is called on.
            let storage = unsafeDowncast(buffer, to: Storage.self)
            storage.withUnsafeMutablePointers { condition, mutex in
                mutex.initialize(to: pthread_mutex_t())
                _ = pthread_mutex_init(mutex, nil)
                _ = pthread_cond_init(condition, nil)
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
