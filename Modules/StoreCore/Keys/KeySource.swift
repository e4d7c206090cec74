public import Domain

/// Where the key that unlocks a store comes from. The store's master key is random and is only ever
/// written wrapped (encrypted) under the key-encryption key this source yields.
public enum KeySource: Sendable {
    /// A passphrase, stretched with Argon2id; the cost and salt live in the store's header.
    case passphrase(SecretBytes)
    /// A file of exactly 32 random bytes, mode 0600. Created when the store is created; never
    /// re-created for an existing store. The default for unattended use.
    case keyFile(path: String)
    /// 32 bytes of key material, hex- or base64-encoded, in an environment variable.
    case environment(variable: String)
    /// A systemd credential (`LoadCredential=`/`SetCredential=`) holding 32 bytes, raw, hex or base64,
    /// read from `$CREDENTIALS_DIRECTORY/name`.
    case systemdCredential(name: String)
    /// 32 bytes of key material the caller already holds.
    case key(SecretBytes)

    /// Whether this source is a passphrase (stretched) rather than full-entropy key material.
    public var isPassphrase: Bool {
        if case .passphrase = self { true } else { false }
    }

    /// A short name for messages, never the material itself.
    public var summary: String {
        switch self {
        case .passphrase: "a passphrase"
        case .keyFile(let path): "the key file \(path)"
        case .environment(let variable): "the key in the environment variable \(variable)"
        case .systemdCredential(let name): "the systemd credential \(name)"
        case .key: "a key"
        }
    }
}
