public import Data

/// The ``HTTPClient`` port served straight by an ``EmbeddedAuthServer``, with no sockets: the Data
/// layer runs exactly as it would against a real server. A server simulated
/// ``SimulatedFailure/down`` makes every call throw ``HTTPClientError/cannotConnect(_:)``.
public struct EmbeddedAuthServerTransport: HTTPClient {
    /// The server that answers.
    public let server: EmbeddedAuthServer

    /// A transport to `server`.
    public init(server: EmbeddedAuthServer) {
        self.server = server
    }

    /// Hands `request` to the server and returns its answer.
    /// - Throws: ``HTTPClientError/cannotConnect(_:)`` while the server is simulated down.
    public func send(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
        try await server.exchange(request)
    }
}
