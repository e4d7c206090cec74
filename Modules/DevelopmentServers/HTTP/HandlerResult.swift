import Locking
import Data
import Dispatch

/// Hands a handler's response from its task to the connection thread that waits for it. The thread
/// blocks on a semaphore, which is fine: it is a dedicated connection thread, never one of the
/// concurrency runtime's cooperative threads.
final class HandlerResult: Sendable {
    private let response = Locked<HTTPResponse?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    /// Stores the response and wakes the waiting thread.
    func deliver(_ value: HTTPResponse) {
        response.withLock { $0 = value }
        ready.signal()
    }

    /// Blocks until ``deliver(_:)`` has run, then returns the response.
    func wait() -> HTTPResponse {
        ready.wait()
        return response.withLock { $0 } ?? HTTPResponse(status: 500)
    }
}
