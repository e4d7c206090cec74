public import Domain
public import Data
public import Foundation
import LegacyPreferences

/// The parts of the app that need only the store, not a server: the launch decision and the legacy
/// migration. Building them touches no network and creates no server.
public struct LocalSession: Sendable {
    /// Decides at launch whether the user is signed in.
    public let validateAuthentication: ValidateAuthentication
    /// The store file.
    public let storePath: String
    private let repository: any SessionRepository
    private let now: @Sendable () -> Date

    /// Opens (creating on first use) the store `configuration` describes, for `account`'s session.
    /// - Throws: ``SecureStoreError`` when the store cannot be opened.
    public init(
        store configuration: StoreConfiguration, account: AccountName = .default,
        policy: AuthenticationPolicy = AuthenticationPolicy(), now: @escaping @Sendable () -> Date = { Date() }
    ) async throws(SecureStoreError) {
        let keychain = try await configuration.open()
        repository = SecureStoreSessionRepository(store: keychain.items, account: account)
        validateAuthentication = ValidateAuthentication(repository: repository, policy: policy, now: now)
        storePath = keychain.storePath
        self.now = now
    }

    /// The migration of the legacy plaintext file at `path` into this store.
    public func migrateLegacyTokens(from path: String) -> MigrateLegacyTokens {
        MigrateLegacyTokens(source: LegacyPreferencesFile(path: path), repository: repository, now: now)
    }
}
