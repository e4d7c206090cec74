public import Domain

/// What protects an export file: a passphrase (stretched with Argon2id, at least MODERATE) or a key
/// file of 32 random bytes. Never the store's own key: an export can be kept or moved apart from it.
public enum ExportKey: Sendable {
    /// A passphrase; its Argon2id cost and salt are in the file's header.
    case passphrase(SecretBytes)
    /// A file of exactly 32 random bytes, mode 0600.
    case keyFile(path: String)

    /// The header's code for this kind of key.
    var kindCode: UInt8 {
        switch self {
        case .passphrase: 1
        case .keyFile: 2
        }
    }
}
