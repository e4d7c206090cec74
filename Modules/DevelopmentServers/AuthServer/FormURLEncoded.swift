import Foundation

/// Parses `application/x-www-form-urlencoded` bodies as OAuth 2.0 requires (RFC 6749 §3.1).
enum FormURLEncoded {
    /// The parameters of `body`, or `nil` when it is not valid UTF-8, has a bad percent-escape, or
    /// repeats a parameter (which RFC 6749 forbids). Parameters with empty values are dropped, as the
    /// RFC says to treat them as omitted.
    static func parse(_ body: Data) -> [String: String]? {
        guard let text = String(data: body, encoding: .utf8) else { return nil }
        var parameters: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decodeComponent(parts[0]), !name.isEmpty,
                let value = decodeComponent(parts.count == 2 ? parts[1] : "")
            else { return nil }
            guard parameters[name] == nil else { return nil }
            if !value.isEmpty { parameters[name] = value }
        }
        return parameters
    }

    /// The media type of `contentType` is `application/x-www-form-urlencoded` (parameters such as a
    /// charset are allowed).
    static func isFormContentType(_ contentType: String?) -> Bool {
        mediaType(contentType) == "application/x-www-form-urlencoded"
    }

    /// The lowercased media type of a `Content-Type` value, without its parameters.
    static func mediaType(_ contentType: String?) -> String? {
        guard let contentType else { return nil }
        let type = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return type.trimmingCharacters(in: .whitespaces).lowercased()
    }

    static func decodeComponent(_ component: Substring) -> String? {
        component.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
