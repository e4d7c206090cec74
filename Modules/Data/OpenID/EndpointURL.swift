public import Foundation

/// An absolute endpoint URL split the way the ``HTTPClient`` port wants it: the origin a client is
/// made for, and the path (with query) sent to it. Only `https`, or `http` to a loopback host
/// (RFC 8252 §8.3), with no user info and no fragment.
public struct EndpointURL: Sendable, Equatable {
    /// `scheme://host[:port]`.
    public let origin: URL
    /// The path and query below the origin, starting with `/`.
    public let path: String
    /// The whole URL as given.
    public let absolute: URL

    /// Splits `url`, or returns `nil` when it is not an acceptable endpoint.
    public init?(_ url: URL) {
        guard let parts = URLComponents(url: url, resolvingAgainstBaseURL: false), let scheme = parts.scheme?.lowercased(),
            let host = parts.host, !host.isEmpty, parts.user == nil, parts.password == nil, parts.fragment == nil
        else { return nil }
        let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased())
        guard scheme == "https" || (scheme == "http" && loopback) else { return nil }
        var originParts = URLComponents()
        originParts.scheme = scheme
        originParts.host = parts.host
        originParts.port = parts.port
        guard let origin = originParts.url else { return nil }
        let path = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        self.origin = origin
        self.path = path + (parts.percentEncodedQuery.map { "?" + $0 } ?? "")
        absolute = url
    }
}
