/// The port to copies of sessions' refresh tokens kept apart from the sessions, by each session's key, so
/// that a session ended without its own keys (an issuer's logout, an operator, a sweep) can still have its
/// refresh token revoked at the issuer. A gateway keeps them (written with the session at sign-in and at
/// each refresh that rotates the token) only when its operator asks: whoever holds the store's key can
/// read them.
public protocol RevocationCopies: Sendable {
    /// Every copy kept, by session key.
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` or ``AuthenticationError/storeDamaged(_:)`` when
    ///   the store cannot be read.
    func copies() async throws(AuthenticationError) -> [(key: String, token: RefreshToken)]

    /// Removes the copy under `key` if it is still `token` (a newer one kept meanwhile stays); whether it
    /// removed one.
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` or ``AuthenticationError/storageFailed(_:)`` when
    ///   the store cannot be written.
    func remove(_ key: String, ifStill token: RefreshToken) async throws(AuthenticationError) -> Bool
}
