public import Domain

/// What unlocks a store, or protects a new one, as the composition root names it: the executable
/// chooses one of these and never sees the store's own key-source type.
public enum KeyChoice: Sendable {
    /// A passphrase, stretched with Argon2id.
    case passphrase(SecretBytes)
    /// A file of exactly 32 random bytes, mode 0600, created with the store when it is missing.
    case keyFile(path: String)
    /// 32 bytes, hex- or base64-encoded, in the named environment variable.
    case environment(variable: String)
    /// A systemd credential of that name, read from `$CREDENTIALS_DIRECTORY`.
    case systemdCredential(name: String)

    /// A short name for messages, never the key material itself.
    public var summary: String {
        switch self {
        case .passphrase: "a passphrase"
        case .keyFile(let path): "the key file \(path)"
        case .environment(let variable): "the key in the environment variable \(variable)"
        case .systemdCredential(let name): "the systemd credential \(name)"
        }
    }

    /// Whether this choice is a passphrase rather than full-entropy key material.
    public var isPassphrase: Bool {
        if case .passphrase = self { true } else { false }
    }
}
