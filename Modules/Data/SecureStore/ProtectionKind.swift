/// What kind of secret protects a store or an export: what a ``SecureStoreError/keySourceMismatch(expected:)``
/// says to give instead.
public enum ProtectionKind: Sendable, Hashable {
    /// A store's passphrase.
    case passphrase
    /// A store's key: 32 random bytes.
    case key
    /// An export's passphrase.
    case exportPassphrase
    /// An export's key file.
    case exportKeyFile

    /// The kind in words: `a passphrase`, `an export key file`.
    public var phrase: String {
        switch self {
        case .passphrase: "a passphrase"
        case .key: "a key"
        case .exportPassphrase: "an export passphrase"
        case .exportKeyFile: "an export key file"
        }
    }
}
