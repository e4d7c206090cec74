public import Foundation

/// One route the gateway forwards: requests whose path starts with `prefix` go to `upstream`, the rest
/// of their path and their query appended (`/api/` → `https://api.example/v1/`: `/api/items?a=1` goes to
/// `https://api.example/v1/items?a=1`). Only these prefixes are forwarded, to only these origins.
public struct GatewayRoute: Sendable, Equatable {
    /// The path prefix, starting and ending with `/`.
    public let prefix: String
    /// The upstream base: an `http` or `https` URL whose path ends with `/`.
    public let upstream: URL

    /// A route from `PREFIX=UPSTREAM`, or `nil` when either part is unusable: the prefix must be a path
    /// that starts and ends with `/` (and is not the gateway's own `/bff/`), the upstream an absolute
    /// `http`/`https` URL without query, fragment or credentials.
    public init?(_ text: String) {
        guard let equals = text.firstIndex(of: "=") else { return nil }
        self.init(prefix: String(text[..<equals]), upstream: String(text[text.index(after: equals)...]))
    }

    /// A route from its two parts (see ``init(_:)``).
    public init?(prefix: String, upstream text: String) {
        guard prefix.hasPrefix("/"), prefix.hasSuffix("/"), prefix.count >= 2, !prefix.hasPrefix("/bff/"),
            !prefix.contains("//"), !prefix.contains(".."), prefix.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x3F }),
            let upstream = URL(string: text.hasSuffix("/") ? text : text + "/"),
            let scheme = upstream.scheme?.lowercased(), scheme == "http" || scheme == "https",
            upstream.host?.isEmpty == false, upstream.query == nil, upstream.fragment == nil, upstream.user == nil,
            upstream.password == nil
        else { return nil }
        self.prefix = prefix
        self.upstream = upstream
    }

    /// The upstream's origin (`scheme://host[:port]`), which the HTTP client for it is made for.
    public var origin: URL {
        var components = URLComponents()
        components.scheme = upstream.scheme
        components.host = upstream.host
        components.port = upstream.port
        return components.url!
    }

    /// Where `target` (a request target: path and query, as sent) goes below the upstream's origin, or
    /// `nil` when it is not under this route's prefix. A target whose remaining path climbs out of the
    /// upstream's base (`..`, or its percent-encoded forms) goes nowhere.
    public func upstreamTarget(for target: String) -> String? {
        guard target.hasPrefix(prefix) else { return nil }
        let rest = target.dropFirst(prefix.count)
        let path = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let decoded = path.removingPercentEncoding ?? String(path)
        let segments = decoded.split(separator: "/", omittingEmptySubsequences: false)
        guard !segments.contains(".."), !segments.contains("."), !decoded.contains("\\"), !decoded.contains("\0") else {
            return nil
        }
        return basePath + rest
    }

    /// The upstream's path, percent-encoded as given, ending with `/`.
    private var basePath: String {
        let path = URLComponents(url: upstream, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? "/"
        return path.hasSuffix("/") ? path : path + "/"
    }
}
