import Dispatch
import Synchronization

/// Waits, on the calling thread, for `body` to finish, and returns what it returned: the benches'
/// synchronous workers use the app's `async` ports this way. A worker is a process of its own that does
/// nothing else meanwhile, so blocking its thread holds nobody up; the work itself runs on the
/// concurrency runtime's threads (and the store's, where it hops), never on the one waiting.
public func waitFor<Value: Sendable, Failure: Error>(_ body: @escaping @Sendable () async throws(Failure) -> Value)
    throws(Failure) -> Value
{
    let done = DispatchSemaphore(value: 0)
    let outcome = Mutex<Result<Value, Failure>?>(nil)
    Task {
        let result: Result<Value, Failure>
        do throws(Failure) {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    return try outcome.withLock { $0! }.get()
}
