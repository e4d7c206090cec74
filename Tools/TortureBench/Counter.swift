import Synchronization

/// A thread-safe counter for unique file names.
final class Counter: Sendable {
    private let value = Mutex(0)

    /// The next number, starting at 1.
    func next() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }
}
