import CCurl
import Data

extension HTTPClientError {
    /// The port's error for a failed curl transfer. The reasons are fixed phrases: curl's own message
    /// can hold the URL, and a URL can hold a token.
    init(curl code: CURLcode, cancelled: Bool) {
        switch code {
        case CURLE_COULDNT_CONNECT: self = .cannotConnect("connection refused")
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: self = .cannotConnect("unknown host")
        case CURLE_OPERATION_TIMEDOUT: self = .timedOut
        case CURLE_ABORTED_BY_CALLBACK:
            self = .transport(cancelled ? "the request was cancelled" : "the request was stopped")
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE:
            self = .transport("the connection was lost")
        case CURLE_WEIRD_SERVER_REPLY: self = .transport("the reply was not valid HTTP")
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE:
            self = .transport("the secure connection failed")
        case CURLE_URL_MALFORMAT: self = .transport("the server URL is not usable")
        // What curl says of a reply that does not begin as HTTP does (HTTP/0.9, which it refuses), and of a URL
        // whose scheme is not one a transfer may use (http, https).
        case CURLE_UNSUPPORTED_PROTOCOL:
            self = .transport("the reply was not HTTP (or the URL's scheme is not http or https)")
        default: self = .transport("the connection failed (curl error \(code.rawValue))")
        }
    }
}
