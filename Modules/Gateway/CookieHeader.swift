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
            // Sliced as bytes, never as characters: a value's first or last byte may join the text beside it
            // into one character, and the cookie boundaries are the bytes `;` and `=`.
            let bytes = field.value.utf8
            var pairStart = bytes.startIndex
            while pairStart < bytes.endIndex {
                let pairEnd = bytes[pairStart...].firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
                // A pair with nothing before or after its `=` is no cookie.
                if let equals = bytes[pairStart..<pairEnd].firstIndex(of: UInt8(ascii: "=")), equals > pairStart,
                    bytes.index(after: equals) < pairEnd,
                    Substring(bytes[pairStart..<equals]).trimmingOptionalWhitespace().utf8.elementsEqual(name.utf8)
                {
                    if found != nil { return nil }
                    found = Substring(bytes[bytes.index(after: equals)..<pairEnd]).trimmingOptionalWhitespace()
                }
                pairStart = pairEnd < bytes.endIndex ? bytes.index(after: pairEnd) : pairEnd
            }
        }
        return found.map(String.init)
    }
}
