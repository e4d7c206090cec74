import Foundation

/// A value one thread at a time uses, behind a pthread mutex (an `NSLock`), with the interface of
/// Synchronization's `Mutex`, which the test doubles used before: ThreadSanitizer cannot see that
/// one's hand-off between threads on Linux, and reported the doubles' state as raced.
public final class Locked<Value: Sendable>: Sendable {
    private let lock = NSLock()
    // Safety: read and written only inside `withLock`, while `lock` is held.
    private nonisolated(unsafe) var value: Value

    /// Guards `value`.
    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, no other thread holding it meanwhile.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
