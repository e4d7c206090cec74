/// The port to where an older version kept tokens in plaintext (the seeds' UserDefaults), read once
/// for migration and then destroyed. Awaited: an adapter that does file I/O does it off the caller's
/// thread, as the store does.
public protocol LegacyTokenSource: Sendable {
    /// What the legacy storage holds now.
    func read() async throws(AuthenticationError) -> LegacyTokens

    /// Overwrites the plaintext with zeros, flushes, and deletes it.
    func wipeAndDelete() async throws(AuthenticationError)
}
