import Foundation

/// Runs long, blocking or CPU-bound test work on a thread of its own, so that it never holds one of
/// the few cooperative threads every other test in the process needs (there are only as many as
/// cores: two here).
public enum DedicatedThread {
    /// Runs `body` on a new thread and returns its result.
    public static func run<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Swift.Result { try body() })
            }.start()
        }
    }

    /// Runs `body`, which cannot fail, on a new thread and returns its result.
    public static func run<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }
}
