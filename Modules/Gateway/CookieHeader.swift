import Data

/// Reads cookies from a request's `Cookie` fields.
enum CookieHeader {
    /// The value of cookie `name`, when the request carries it exactly once. Two cookies of one name (one
    /// planted by a sibling domain, say) are ambiguous, and read as none.
    ///
    /// Read as bytes: `;`, `=` and the spaces around them are ASCII, and every call through a route reads
    /// the session cookie.
    static func value(_ name: String, in headers: HTTPHeaders) -> String? {
        var found: Substring?
        for field in headers where field.name.caseInsensitiveEquals("cookie") {
            for pair in field.value.utf8.split(separator: UInt8(ascii: ";")) {
                let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1)
                guard parts.count == 2, Substring(parts[0]).trimmingOptionalWhitespace().utf8.elementsEqual(name.utf8)
                else { continue }
                if found != nil { return nil }
                found = Substring(parts[1]).trimmingOptionalWhitespace()
            }
        }
        return found.map(String.init)
    }
}
