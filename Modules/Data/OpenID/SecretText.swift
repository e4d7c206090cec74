import Domain

/// Comparisons of secret text (`state`, `nonce`) that take the same time whatever the content.
enum SecretText {
    /// Whether `a` and `b` are the same text, compared in constant time.
    static func equal(_ a: String, _ b: String) -> Bool {
        SecretBytes(utf8: a) == SecretBytes(utf8: b)
    }
}
