import Foundation

/// Base64url without padding (RFC 7515 §2), for writing test vectors the way JOSE documents print them.
enum Base64URLTestText {
    static func decode(_ text: String) -> Data {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64) ?? Data()
    }
}
