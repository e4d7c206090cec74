import Foundation

/// Base64url without padding (RFC 7515 §2), as JWS and PKCE write bytes.
enum Base64URL {
    /// The text of `bytes`.
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of `text`, or `nil` when it is not base64url (padding, `+`, `/` and spaces refused).
    static func decode(_ text: some StringProtocol) -> Data? {
        guard text.utf8.allSatisfy({ $0.isBase64URLByte }), text.utf8.count % 4 != 1 else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

extension UInt8 {
    /// Whether the byte is in the base64url alphabet.
    fileprivate var isBase64URLByte: Bool {
        (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) || (0x30...0x39).contains(self) || self == 0x2D
            || self == 0x5F
    }
}
