import Foundation

/// Base64url without padding (RFC 4648 §5), as JWTs and opaque tokens use it.
enum Base64URL {
    /// The unpadded base64url text of `bytes`.
    static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of canonical unpadded base64url `text`, or `nil`. Non-canonical spellings (padding,
    /// stray bits in the last character) are refused, so a token has exactly one accepted form.
    static func decode(_ text: Substring) -> [UInt8]? {
        guard text.utf8.allSatisfy(isAlphabet) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        switch standard.utf8.count % 4 {
        case 2: standard += "=="
        case 3: standard += "="
        case 1: return nil
        default: break
        }
        guard let data = Data(base64Encoded: standard) else { return nil }
        let bytes = [UInt8](data)
        guard encode(bytes) == text else { return nil }
        return bytes
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
