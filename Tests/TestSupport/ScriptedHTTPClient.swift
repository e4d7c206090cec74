public import Data
public import Foundation

/// An HTTP client that answers from a script keyed by path and records every request, for testing
/// the gateways' mapping of replies.
public final class ScriptedHTTPClient: HTTPClient {
    private struct State {
        var replies: [String: [Result<HTTPResponse, HTTPClientError>]] = [:]
        var requests: [HTTPRequest] = []
    }

    private let state = Locked(State())

    /// No replies yet: unscripted paths answer 404.
    public init() {}

    /// Queues a reply for `path`; the last queued reply repeats.
    public func reply(_ path: String, status: Int, headers: [(String, String)] = [], body: String = "") {
        let response = HTTPResponse(status: status, headers: HTTPHeaders(headers), body: Data(body.utf8))
        state.withLock { $0.replies[path, default: []].append(.success(response)) }
    }

    /// Queues a reply with raw body bytes.
    public func reply(_ path: String, status: Int, body: Data) {
        state.withLock { $0.replies[path, default: []].append(.success(HTTPResponse(status: status, body: body))) }
    }

    /// Queues a transport failure for `path`.
    public func fail(_ path: String, with error: HTTPClientError) {
        state.withLock { $0.replies[path, default: []].append(.failure(error)) }
    }

    /// Every request sent, in order.
    public var requests: [HTTPRequest] { state.withLock { $0.requests } }

    public func send(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
        let reply: Result<HTTPResponse, HTTPClientError> = state.withLock { state in
            state.requests.append(request)
            guard var queue = state.replies[request.path], let first = queue.first else {
                return .success(HTTPResponse(status: 404, body: Data(#"{"error":"not_found"}"#.utf8)))
            }
            if queue.count > 1 {
                queue.removeFirst()
                state.replies[request.path] = queue
            }
            return first
        }
        return try reply.get()
    }
}
