extension HTTPClient {
    /// The default for clients that buffer: ``HTTPClient/send(_:)``, its body handed over as a complete
    /// stream.
    public func stream(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPStreamedResponse {
        let response = try await send(request)
        return HTTPStreamedResponse(status: response.status, headers: response.headers, body: HTTPBodyStream(response.body))
    }
}
