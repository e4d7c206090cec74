import Foundation

/// A value that one thread at a time reads or changes, behind a pthread mutex (an `NSLock`), with the
/// interface of Synchronization's `Mutex`.
///
/// It stands in for `Mutex`, whose hand-off between threads ThreadSanitizer cannot see on Linux: the
/// bench's sanitizer scenario had every value shared through one reported as a data race, which
/// would hide a real one.
package final class Locked<Value: Sendable>: Sendable {
    private let lock = NSLock()
    // Safety: read and written only inside `withLock`, while `lock` is held.
    private nonisolated(unsafe) var value: Value

    /// Guards `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, no other thread holding it meanwhile.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
