package import Foundation

/// `application/x-www-form-urlencoded` bodies the client sends (RFC 6749 appendix B). The embedded
/// server reads them with its own strict parser (`FormURLEncoded`), which refuses a repeated parameter.
package enum FormBody {
    /// The encoded body of `fields`, in order.
    package static func encode(_ fields: [(String, String)]) -> Data {
        Data(fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&").utf8)
    }

    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._*")

    /// `text` form-encoded, as a field's name or value (and the id and secret of HTTP Basic client
    /// authentication, RFC 6749 §2.3.1).
    static func escape(_ text: String) -> String {
        (text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "").replacingOccurrences(of: "%20", with: "+")
    }
}
