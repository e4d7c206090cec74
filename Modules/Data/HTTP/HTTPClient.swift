/// The port through which the Data layer talks HTTP to an auth server. Adapters: `CurlHTTPClient` (real
/// HTTP over libcurl, on Linux), `URLSessionHTTPClient` (real HTTP elsewhere) and the embedded auth
/// server's in-process transport.
public protocol HTTPClient: Sendable {
    /// Sends `request` to the server and returns its response, whatever its status.
    /// - Throws: ``HTTPClientError`` for transport failures (no response), never for a status code.
    func send(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse

    /// Sends `request` and returns once the response's status and header fields are known, its body
    /// streaming after them (clients that buffer hand over the complete body).
    /// - Throws: ``HTTPClientError`` when no response head arrives; a body that ends early fails its stream.
    func stream(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPStreamedResponse
}
