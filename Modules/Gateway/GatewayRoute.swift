import Data
public import Foundation

/// One route the gateway forwards: requests whose path starts with `prefix` go to `upstream`, the rest
/// of their path and their query appended (`/api/` → `https://api.example/v1/`: `/api/items?a=1` goes to
/// `https://api.example/v1/items?a=1`). Only these prefixes are forwarded, to only these origins.
public struct GatewayRoute: Sendable, Equatable {
    /// The path prefix, starting and ending with `/`.
    public let prefix: String
    /// The upstream base: an `http` or `https` URL whose path ends with `/`.
    public let upstream: URL
    /// The upstream's origin (`scheme://host[:port]`), which the HTTP client for it is made for.
    public let origin: URL
    /// The upstream's path, percent-encoded as given, ending with `/` (worked out once: every call uses it).
    private let basePath: String

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
        // The URL's parts as `URLComponents` gives them (an IPv6 host keeps its brackets, which `URL.host`
        // drops), as ``EndpointURL`` splits an endpoint.
        guard let parts = URLComponents(url: upstream, resolvingAgainstBaseURL: false) else { return nil }
        var origin = URLComponents()
        origin.scheme = parts.scheme
        origin.host = parts.host
        origin.port = parts.port
        guard let originURL = origin.url else { return nil }
        let path = parts.percentEncodedPath
        self.prefix = prefix
        self.upstream = upstream
        self.origin = originURL
        basePath = path.hasSuffix("/") ? path : path + "/"
    }

    /// Where `target` (a request target: path and query, as sent) goes below the upstream's origin, or
    /// `nil` when it is not under this route's prefix. A target whose remaining path could climb out of the
    /// upstream's base goes nowhere: a segment that is `.` or `..` once percent-decoded, or before a `;`
    /// (which Tomcat and Spring read as a path parameter: `..;`), an escape that is not valid (`%zz`) or
    /// decodes to `/`, `\` or NUL. Bytes a URL may not hold as written are escaped in what is returned
    /// (``escaped(_:)``).
    public func upstreamTarget(for target: String) -> String? {
        guard target.hasPrefix(prefix) else { return nil }
        let rest = target.dropFirst(prefix.count)
        let path = rest[..<(rest.utf8.firstIndex(of: UInt8(ascii: "?")) ?? rest.endIndex)]
        // Most paths are ASCII without an escape or a dot: nothing to decode then. (Non-ASCII text goes the
        // long way, whose segments are split as characters: a `/` joined to a combining mark is no separator.)
        let plain = !path.utf8.contains { byte in
            byte == UInt8(ascii: "%") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "\\") || byte == 0
                || byte >= 0x80
        }
        if plain { return Self.escaped(basePath + rest) }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            guard let decoded = Self.percentDecoded(segment.utf8),
                !decoded.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") || $0 == 0 })
            else { return nil }
            let name = decoded.split(separator: UInt8(ascii: ";"), maxSplits: 1, omittingEmptySubsequences: false).first ?? []
            if name.elementsEqual(".".utf8) || name.elementsEqual("..".utf8) { return nil }
        }
        return Self.escaped(basePath + rest)
    }

    /// `target` with each byte a URL may not hold as written percent-encoded (RFC 3986 §2.1), which an HTTP
    /// client refuses in a URL: a browser sends `|` and `^` in a path, and those, `{`, `}` and `` ` `` in a
    /// query, as they are; a script may send `"`, `<` and `>`. And `#`, which no browser sends (it starts the
    /// fragment) and which curl would take for the path's end, removing a dot segment then left before it
    /// (`/api/..#x` asked the upstream for its `/`). Escapes already in it are kept. Most targets hold none of
    /// these, and are returned as they are.
    static func escaped(_ target: String) -> String {
        guard target.utf8.contains(where: { !isKeptInURL($0) }) else { return target }
        let digits = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(target.utf8.count + 16)
        for byte in target.utf8 {
            if isKeptInURL(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 15)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `byte` stands in a forwarded target as it is: one the HTTP client takes in a URL, but `#`.
    private static func isKeptInURL(_ byte: UInt8) -> Bool {
        byte != UInt8(ascii: "#") && HTTPRequest.isURLByte(byte)
    }

    /// `text` with its percent escapes decoded to bytes, or `nil` when one is not `%` and two hex digits.
    static func percentDecoded(_ text: Substring.UTF8View) -> [UInt8]? {
        var bytes: [UInt8] = []
        var iterator = text.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
