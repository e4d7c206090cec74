#if HARDTACK_FUZZ
    import Data

    /// An HTTP client that answers every request with the same response: the fuzzed reply.
    struct OneReplyClient: HTTPClient {
        let response: HTTPResponse

        init(_ response: HTTPResponse) {
            self.response = response
        }

        func send(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
            response
        }
    }
#endif
