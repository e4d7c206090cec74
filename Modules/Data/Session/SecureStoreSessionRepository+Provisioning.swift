public import Domain
import Foundation

/// Many accounts' sessions written at once, for the project's tools: outside the use cases, so not for
/// adopters (`@_spi(HardtackTools)`).
extension SecureStoreSessionRepository {
    /// Stores the sessions of accounts that have none yet, all in one transaction: a benchmark's store of
    /// many accounts, filled at once. Each session's items are added, not replaced, so no write has to
    /// look for an earlier one. A write outside the use cases (no sign-in, no revocation of what it
    /// would replace), so it is for the project's tools only (`@_spi(HardtackTools)`), not for adopters.
    /// - Throws: ``AuthenticationError/storageFailed(_:)`` when an account already has a session
    ///   (nothing is stored then), and the store's failures.
    @_spi(HardtackTools) public static func addSessions(
        _ sessions: [(account: AccountName, session: Session)], to store: any SecureItemStore
    ) async throws(AuthenticationError) {
        let repositories = sessions.map { (Self(store: store, account: $0.account), $0.session) }
        try await repositories.first?.0.run {
            try store.transaction { transaction in
                for (repository, session) in repositories { try repository.add(session, to: transaction) }
            }
        }
    }

    /// Adds the session's items (none of them may exist yet).
    func add(_ session: Session, to transaction: any SecureItemTransaction) throws {
        try transaction.add(item(Account.refreshToken), data: session.refreshToken.value)
        try transaction.add(item(Account.accessToken), data: session.accessToken.value)
        var encoded = try JSONEncoder().encode(SessionRecordDTO(session))
        defer { encoded.resetBytes(in: 0..<encoded.count) }
        try transaction.add(item(Account.record), data: SecretBytes(encoded))
        if let secret = session.issuer?.clientSecret { try transaction.add(item(Account.clientSecret), data: secret) }
        if let identity = session.identity { try transaction.add(item(Account.idToken), data: identity.idToken) }
    }
}
