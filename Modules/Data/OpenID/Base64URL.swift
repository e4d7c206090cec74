package import Foundation

/// Base64url without padding (RFC 4648 §5, RFC 7515 §2), as JWS, JWTs, PKCE and opaque tokens write bytes.
/// Decoding accepts the one canonical spelling only (no padding, no `+`, `/` or spaces, no stray bits in
/// the last character), so a token or signature has exactly one accepted form.
package enum Base64URL {
    /// The unpadded base64url text of `bytes`.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of canonical unpadded base64url `text`, or `nil` when it is anything else.
    package static func decode(_ text: some StringProtocol) -> Data? {
        guard text.utf8.allSatisfy(isAlphabet), text.utf8.count % 4 != 1 else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), encode(data) == text else { return nil }
        return data
    }

    private static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}
