import Data
import Synchronization

/// An HTTP client that answers every request with the next of a fuzzer's generated responses (or
/// transport failures), so the gateways' reply mapping meets hostile input without a network.
final class FuzzHTTPClient: HTTPClient {
    /// One generated outcome of a send.
    enum Answer: Sendable {
        case response(HTTPResponse)
        case failure(HTTPClientError)
    }

    private let answers: Mutex<[Answer]>

    /// A client that gives `answers` in order, then transport failures.
    init(_ answers: [Answer]) {
        self.answers = Mutex(answers)
    }

    func send(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
        let next = answers.withLock { $0.isEmpty ? Answer.failure(.transport("no more answers")) : $0.removeFirst() }
        switch next {
        case .response(let response): return response
        case .failure(let error): throw error
        }
    }
}
