/// The characters RFC 6750 allows in a bearer token (`b64token`): letters, digits and `-._~+/`,
/// then optional trailing `=`. Anything else (spaces, quotes, CR, LF) is refused before it can reach
/// a header.
enum BearerTokenSyntax {
    /// Whether `token` is a non-empty, at most 8 KiB, well-formed bearer token.
    static func isValid(_ token: SecretBytes) -> Bool {
        token.withUnsafeBytes { bytes in
            guard !bytes.isEmpty, bytes.count <= 8192 else { return false }
            var seenPadding = false
            for byte in bytes {
                if byte == UInt8(ascii: "=") {
                    seenPadding = true
                    continue
                }
                if seenPadding { return false }
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                    UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                    continue
                default:
                    return false
                }
            }
            return bytes[0] != UInt8(ascii: "=")
        }
    }
}
