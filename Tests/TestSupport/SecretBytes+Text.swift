public import Domain

/// Secret bytes holding `text` in UTF-8.
public func secret(_ text: String) -> SecretBytes { SecretBytes(utf8: text) }

extension SecretBytes {
    /// The bytes as a string, for assertions.
    public var text: String? { revealedString() }
}
