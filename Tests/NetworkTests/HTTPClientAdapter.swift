import CurlHTTP
import Data
import Foundation
import URLSessionHTTP

/// The adapters of the `HTTPClient` port, for the suite every one of them must pass.
enum HTTPClientAdapter: String, CaseIterable, CustomStringConvertible, Sendable {
    case urlSession, curl

    var description: String { rawValue }

    /// A client of this adapter for `baseURL`.
    func client(_ baseURL: URL, timeout: TimeInterval = 15, responseSizeLimit: Int = 1 << 20) -> any HTTPClient {
        switch self {
        case .urlSession: URLSessionHTTPClient(baseURL: baseURL, timeout: timeout, responseSizeLimit: responseSizeLimit)
        case .curl: CurlHTTPClient(baseURL: baseURL, timeout: timeout, responseSizeLimit: responseSizeLimit)
        }
    }
}
