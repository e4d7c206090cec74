public import Data
public import Domain
public import Foundation

/// Every account's session in one store, opened once: who is signed in, how, and what a launch would
/// decide for each, never a token.
public enum SessionDirectory {
    /// The accounts with a session in the store `configuration` describes (in its access groups), each
    /// with its user, sign-in method, launch decision and access-token expiry, sorted by name.
    /// - Throws: ``SecureStoreError`` when the store cannot be opened or its sessions cannot be listed,
    ///   as the store said it: ``SecureStoreError/integrityFailure(_:)`` only for damage; a locked store or
    ///   a server that cannot be reached keeps its own error. Once listed, a session that cannot be read
    ///   says so in its account's decision instead.
    public static func overview(
        store configuration: StoreConfiguration, policy: AuthenticationPolicy = AuthenticationPolicy(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws(SecureStoreError) -> [AccountOverview] {
        let keychain = try await configuration.open()
        return try await overview(of: keychain.items, policy: policy, now: now)
    }

    /// The overview of the sessions in `items`, an open store.
    static func overview(
        of items: any SecureItemStore, policy: AuthenticationPolicy, now: @escaping @Sendable () -> Date
    ) async throws(SecureStoreError) -> [AccountOverview] {
        let accounts = try await SecureStoreSessionRepository.accountNames(in: items)
        // Every session in one query (10,000 accounts on PostgreSQL took 2.7 s with a read, a round
        // trip, per account). If that query fails (a damaged item), each account is read alone, so
        // that the damage shows in its own decision only.
        let sessions = try? await SecureStoreSessionRepository.sessions(in: items)
        var overview: [AccountOverview] = []
        for account in accounts {
            let repository = SecureStoreSessionRepository(store: items, account: account)
            let validate = ValidateAuthentication(repository: repository, policy: policy, now: now)
            let session: Session?
            let decision: LaunchDecision
            let read: Result<Session?, AuthenticationError>
            if let sessions {
                read = sessions[account] ?? .success(nil)
            } else {
                do throws(AuthenticationError) {
                    read = .success(try await repository.load())
                } catch {
                    read = .failure(error)
                }
            }
            switch read {
            case .success(let found):
                (session, decision) = (found, validate.decision(for: found))
            case .failure(.storeUnavailable(let reason)):
                (session, decision) = (nil, .storeUnavailable(reason: reason))
            case .failure(.storeDamaged(let reason)):
                (session, decision) = (nil, .storeDamaged(reason: reason))
            case .failure(let error):
                (session, decision) = (nil, .storeUnavailable(reason: error.description))
            }
            overview.append(
                AccountOverview(
                    account: account, user: session?.user, method: session?.method, decision: decision,
                    accessTokenExpiresAt: session?.accessToken.expiresAt))
        }
        return overview
    }
}
