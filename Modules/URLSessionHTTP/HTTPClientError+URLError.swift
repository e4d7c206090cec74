import Data
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPClientError {
    /// The port's error for a `URLSession` failure. The reasons are fixed phrases: a `URLError`'s own
    /// text can hold the URL, and a URL can hold a token.
    init(mapping error: any Error, cancelled: Bool) {
        guard let urlError = error as? URLError else {
            self = .transport("the connection failed")
            return
        }
        switch urlError.code {
        case .cannotConnectToHost: self = .cannotConnect("connection refused")
        case .cannotFindHost, .dnsLookupFailed: self = .cannotConnect("unknown host")
        case .notConnectedToInternet: self = .cannotConnect("no network connection")
        case .timedOut: self = .timedOut
        case .cancelled: self = .transport(cancelled ? "the request was cancelled" : "the request was stopped")
        case .networkConnectionLost: self = .transport("the connection was lost")
        case .badServerResponse, .cannotParseResponse: self = .transport("the reply was not valid HTTP")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            self = .transport("the secure connection failed")
        case .badURL, .unsupportedURL: self = .transport("the server URL is not usable")
        default: self = .transport("the connection failed (URL error \(urlError.code.rawValue))")
        }
    }
}
