/// The state of a legacy plaintext token file.
public enum LegacyTokens: Sendable {
    /// There is no legacy file.
    case absent
    /// The file was already wiped by an earlier run that stopped before deleting it.
    case wiped
    /// The tokens the file holds.
    case tokens(access: SecretBytes, refresh: SecretBytes)
}
