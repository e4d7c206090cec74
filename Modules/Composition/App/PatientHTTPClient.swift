import Data
import Domain

/// An HTTP client that says, once, when a request has waited a second for the server, so that a person
/// is not left before a silent terminal for the whole timeout.
struct PatientHTTPClient: HTTPClient {
    private let base: any HTTPClient
    private let onWait: @Sendable (WaitReason) -> Void

    /// Wraps `base`; `onWait` hears ``WaitReason/serverReply`` after a second without an answer.
    init(_ base: any HTTPClient, onWait: @escaping @Sendable (WaitReason) -> Void) {
        self.base = base
        self.onWait = onWait
    }

    func send(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
        let onWait = onWait
        let watch = Task {
            try await Task.sleep(for: .seconds(1))
            onWait(.serverReply)
        }
        defer { watch.cancel() }
        return try await base.send(request)
    }
}
