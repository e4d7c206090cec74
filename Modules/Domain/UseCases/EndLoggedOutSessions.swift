/// Ends the sessions the issuer says are over (OpenID Connect back-channel logout): every stored session
/// the logout names is deleted. Nothing is revoked here: the tokens open only with keys the catalog does not
/// have; ``RevokeEndedSessions`` revokes them afterwards from copies, where copies are kept.
public struct EndLoggedOutSessions: Sendable {
    private let catalog: any SessionCatalog

    /// Creates the use case.
    public init(catalog: any SessionCatalog) {
        self.catalog = catalog
    }

    /// Deletes every session `logout` names and returns the keys of those deleted (a session that another
    /// process deleted meanwhile is not counted).
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` when the store cannot be read or written;
    ///   sessions deleted before that stay deleted, and the issuer's logout can be applied again.
    public func callAsFunction(_ logout: IssuerLogout) async throws(AuthenticationError) -> [String] {
        var ended: [String] = []
        for (key, session) in try await catalog.sessions() where logout.names(session) {
            if try await catalog.repository(for: key).delete() { ended.append(key) }
        }
        return ended
    }
}
