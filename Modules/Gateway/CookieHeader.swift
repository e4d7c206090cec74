import Data

/// Reads cookies from a request's `Cookie` fields.
enum CookieHeader {
    /// The value of cookie `name`, when the request carries it exactly once. Two cookies of one name (one
    /// planted by a sibling domain, say) are ambiguous, and read as none.
    ///
    /// Read as bytes: `;`, `=` and the spaces around them are ASCII, and every call through a route reads
    /// the session cookie.
    static func value(_ name: String, in headers: HTTPHeaders) -> String? {
        var found: Substring.UTF8View.SubSequence?
        for field in headers where field.name.caseInsensitiveEquals("cookie") {
            for pair in field.value.utf8.split(separator: UInt8(ascii: ";")) {
                let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1)
                guard parts.count == 2, trimmed(parts[0]).elementsEqual(name.utf8) else { continue }
                if found != nil { return nil }
                found = trimmed(parts[1])
            }
        }
        return found.map { String(Substring($0)) }
    }

    /// `bytes` without the spaces and tabs around them.
    private static func trimmed(_ bytes: Substring.UTF8View.SubSequence) -> Substring.UTF8View.SubSequence {
        var bytes = bytes
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
        return bytes
    }
}
