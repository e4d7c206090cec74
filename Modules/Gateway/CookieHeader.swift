import Data

/// Reads cookies from a request's `Cookie` fields.
enum CookieHeader {
    /// The value of cookie `name`, when the request carries it exactly once. Two cookies of one name (one
    /// planted by a sibling domain, say) are ambiguous, and read as none.
    ///
    /// Read in the fields' own bytes: `;`, `=` and the spaces around them are ASCII, and every call
    /// through a route reads the session cookie.
    static func value(_ name: String, in headers: HTTPHeaders) -> String? {
        var found: String?
        for field in headers where field.name.caseInsensitiveEquals("cookie") {
            var value = field.value
            var wanted = name
            let ambiguous = value.withUTF8 { bytes in
                wanted.withUTF8 { wanted in Self.scan(bytes, for: wanted, into: &found) }
            }
            if ambiguous { return nil }
        }
        return found
    }

    /// Looks through one field's pairs for `name`, sliced as bytes, never as characters: a value's first or
    /// last byte may join the text beside it into one character, and the cookie boundaries are the bytes
    /// `;` and `=`. A pair with nothing before or after its `=` is no cookie. Sets `found`; `true` when
    /// the name is there a second time.
    private static func scan(
        _ bytes: UnsafeBufferPointer<UInt8>, for name: UnsafeBufferPointer<UInt8>, into found: inout String?
    ) -> Bool {
        var pairStart = 0
        while pairStart < bytes.count {
            var pairEnd = pairStart
            while pairEnd < bytes.count, bytes[pairEnd] != UInt8(ascii: ";") { pairEnd += 1 }
            var equals = pairStart
            while equals < pairEnd, bytes[equals] != UInt8(ascii: "=") { equals += 1 }
            if equals > pairStart, equals + 1 < pairEnd,
                bytes[pairStart..<equals].trimmingOptionalWhitespace().elementsEqual(name)
            {
                if found != nil { return true }
                found = String(decoding: bytes[(equals + 1)..<pairEnd].trimmingOptionalWhitespace(), as: UTF8.self)
            }
            pairStart = pairEnd + 1
        }
        return false
    }
}
