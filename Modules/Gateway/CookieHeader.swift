import Data

/// Reads cookies from a request's `Cookie` fields.
enum CookieHeader {
    /// The value of cookie `name`, when the request carries it exactly once. Two cookies of one name (one
    /// planted by a sibling domain, say) are ambiguous, and read as none.
    static func value(_ name: String, in headers: HTTPHeaders) -> String? {
        var found: String?
        for field in headers where field.name.caseInsensitiveEquals("cookie") {
            for pair in field.value.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingOptionalWhitespace() == name else { continue }
                if found != nil { return nil }
                found = String(parts[1].trimmingOptionalWhitespace())
            }
        }
        return found
    }
}
