#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A flag of each thread's own (a POSIX thread-specific key), for what a synchronous call must know about
/// the calls its thread is inside of.
final class ThreadFlag: Sendable {
    // Safety: the key is created once here and only read afterwards; pthread keys are safe to use from
    // any thread, and each thread sees only its own value.
    private nonisolated(unsafe) var key = pthread_key_t()

    /// A new flag, clear on every thread.
    init() {
        pthread_key_create(&key, nil)
    }

    deinit { pthread_key_delete(key) }

    /// Whether the flag is set on this thread.
    var isSet: Bool { pthread_getspecific(key) != nil }

    /// Runs `body` with the flag set on this thread, cleared again after.
    func whileSet<Value>(_ body: () throws -> Value) rethrows -> Value {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
        defer { pthread_setspecific(key, previous) }
        return try body()
    }
}
