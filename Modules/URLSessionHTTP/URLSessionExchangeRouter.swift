import Locking
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session delegate: routes each task's callbacks to its ``URLSessionExchange``, stops a body
/// that grows past the limit, and refuses every redirect.
final class URLSessionExchangeRouter: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = Locked<[Int: URLSessionExchange]>([:])

    /// Routes the callbacks of task `identifier` to `exchange` until it completes.
    func register(_ exchange: URLSessionExchange, for identifier: Int) {
        exchanges.withLock { $0[identifier] = exchange }
    }

    private func exchange(for task: URLSessionTask) -> URLSessionExchange? {
        exchanges.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let proceed = exchange(for: dataTask)?.receive(response) ?? false
        completionHandler(proceed ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if exchange(for: dataTask)?.receive(data) == false { dataTask.cancel() }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Following a redirect would re-send the body (a password, a refresh token) to a location the
        // caller never chose; the 3xx response is returned instead.
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let exchange = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        exchange?.complete(with: error)
    }
}
