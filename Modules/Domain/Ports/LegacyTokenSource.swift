/// The port to where an older version kept tokens in plaintext (the seeds' UserDefaults), read once
/// for migration and then destroyed.
public protocol LegacyTokenSource: Sendable {
    /// What the legacy storage holds now.
    func read() throws(AuthenticationError) -> LegacyTokens

    /// Overwrites the plaintext with zeros, flushes, and deletes it.
    func wipeAndDelete() throws(AuthenticationError)
}
