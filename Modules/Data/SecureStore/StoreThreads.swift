import Locking

/// Where store calls run when they are awaited: threads of the store's own, off Swift's cooperative
/// pool. A store call blocks its thread while it waits for the store's lock or, on PostgreSQL, for the
/// server (each wait bounded by the store's deadlines); the pool has one thread per core, so a backend
/// awaiting many store calls at once would otherwise starve its other tasks. The session repository and
/// the store's `async` operations hop here themselves, as GRDB's `read` and `write` hop to its queues:
/// a caller never has to know which calls may block.
public enum StoreThreads {
    /// The executor: a concurrent Dispatch queue, outside the cooperative pool.
    private static let executor = DispatchTaskExecutor(label: "hardtack.store-calls")

    /// Whether the calling code runs on the store's threads.
    public static var isCurrent: Bool { executor.isCurrent }

    /// Runs `body`, which may block, on the store's threads, and returns what it returns.
    /// - Throws: what `body` throws.
    public static func run<Value, Failure: Error>(_ body: () throws(Failure) -> Value) async throws(Failure) -> Value {
        if executor.isCurrent { return try body() }
        return try await withTaskExecutorPreference(executor) { () async throws(Failure) -> Value in try body() }
    }
}
