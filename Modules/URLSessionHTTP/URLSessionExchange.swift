import Locking
import Data
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request in flight: collects the response under the size limit and resumes its caller exactly
/// once, whether the task completes, fails, overflows or is cancelled.
final class URLSessionExchange: Sendable {
    private typealias Continuation = CheckedContinuation<Result<HTTPResponse, HTTPClientError>, Never>

    /// What the exchange knows so far; only touched under `state`'s lock.
    private struct State {
        var task: URLSessionDataTask?
        var continuation: Continuation?
        var cancelled = false
        var overflowed = false
        var status = 0
        var headers = HTTPHeaders()
        var body = Data()

        /// What the caller gets once the task has ended with `error` (nil for success).
        func outcome(error: (any Error)?, limit: Int) -> Result<HTTPResponse, HTTPClientError> {
            if overflowed { return .failure(.responseTooLarge(limit: limit)) }
            if let error { return .failure(HTTPClientError(mapping: error, cancelled: cancelled)) }
            guard status != 0 else { return .failure(.transport("the reply was not HTTP")) }
            return .success(HTTPResponse(status: status, headers: headers, body: body))
        }
    }

    private let limit: Int
    private let state = Locked(State())

    /// An exchange that accepts at most `limit` body bytes.
    init(limit: Int) {
        self.limit = limit
    }

    /// Registers `task` with `router` and resumes it, unless the caller was cancelled first.
    func start(
        _ task: URLSessionDataTask, router: URLSessionExchangeRouter,
        continuation: CheckedContinuation<Result<HTTPResponse, HTTPClientError>, Never>
    ) {
        let proceed = state.withLock { state in
            if state.cancelled { return false }
            state.task = task
            state.continuation = continuation
            return true
        }
        guard proceed else {
            continuation.resume(returning: .failure(.transport("the request was cancelled")))
            return
        }
        // Registered before `resume`, so no delegate callback can arrive for an unknown task.
        router.register(self, for: task.taskIdentifier)
        task.resume()
    }

    /// Cancels the task; the caller is resumed by the completion that follows.
    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }

    /// Records the status and headers, and says whether to go on (false when the declared length is
    /// already over the limit).
    func receive(_ response: URLResponse) -> Bool {
        guard let http = response as? HTTPURLResponse else { return true }
        var headers = HTTPHeaders()
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers.add(name, value) }
        }
        return state.withLock { state in
            state.status = http.statusCode
            state.headers = headers
            if http.expectedContentLength > Int64(limit) {
                state.overflowed = true
                return false
            }
            return true
        }
    }

    /// Appends body bytes, and says whether to go on (false once the body is over the limit).
    func receive(_ data: Data) -> Bool {
        state.withLock { state in
            guard !state.overflowed else { return false }
            if state.body.count + data.count > limit {
                state.overflowed = true
                state.body = Data()
                return false
            }
            state.body.append(data)
            return true
        }
    }

    /// Resumes the caller with the response, or with the error the task ended with.
    func complete(with error: (any Error)?) {
        let (continuation, outcome) = state.withLock { state in
            defer {
                state.continuation = nil
                state.task = nil
            }
            return (state.continuation, state.outcome(error: error, limit: limit))
        }
        continuation?.resume(returning: outcome)
    }
}
