package import Foundation

/// A value that one thread at a time reads or changes, behind a pthread mutex (an `NSLock`), with the
/// interface of Synchronization's `Mutex`.
///
/// It stands in for `Mutex`, whose hand-off between threads ThreadSanitizer cannot see on Linux: the
/// bench's sanitizer scenario had every value shared through one reported as a data race, which
/// would hide a real one. Inlinable, so that a caller's closure is specialized into its code rather than
/// passed through a generic call (the gateway takes several such locks per request).
package final class Locked<Value: Sendable>: Sendable {
    @usableFromInline let lock = NSLock()
    // Safety: read and written only inside `withLock`, while `lock` is held.
    @usableFromInline nonisolated(unsafe) var value: Value

    /// Guards `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, no other thread holding it meanwhile.
    @inlinable
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
