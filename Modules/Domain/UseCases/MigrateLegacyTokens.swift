public import Foundation

/// Moves tokens an older version kept in plaintext into the secure store, then wipes and deletes
/// the plaintext.
///
/// Safe to run twice and safe if killed at any point: the store is written in one transaction before
/// the file is touched; a file already imported, or already wiped, is only destroyed.
public struct MigrateLegacyTokens: Sendable {
    private let source: any LegacyTokenSource
    private let repository: any SessionRepository
    private let now: @Sendable () -> Date

    /// Creates the use case.
    public init(
        source: any LegacyTokenSource, repository: any SessionRepository, now: @escaping @Sendable () -> Date
    ) {
        self.source = source
        self.repository = repository
        self.now = now
    }

    /// Runs the migration.
    /// - Throws: ``AuthenticationError/invalidLegacyFile(_:)`` when the file does not hold usable
    ///   tokens (it is left as it is), or a store error (the file is left as it is).
    public func callAsFunction() async throws(AuthenticationError) -> MigrationOutcome {
        switch try await source.read() {
        case .absent:
            return .nothingToMigrate
        case .wiped:
            try await source.wipeAndDelete()
            return .alreadyMigrated
        case .tokens(let access, let refresh):
            let refreshToken: RefreshToken
            let accessToken: AccessToken
            do {
                refreshToken = try RefreshToken(value: refresh)
                // The file never recorded when the access token expires: it is used until a 401 says so.
                accessToken = try AccessToken(value: access, issuedAt: now(), expiresAt: nil)
            } catch {
                throw .invalidLegacyFile("a token in the file is not a valid bearer token")
            }
            if let stored = try await repository.load() {
                // Either an earlier run imported this file and stopped before deleting it, or the user
                // has since signed in with the new version: the stored session wins either way.
                try await source.wipeAndDelete()
                return stored.refreshToken.isSameToken(as: refreshToken) ? .imported : .alreadyMigrated
            }
            try await repository.replace(
                with: Session(accessToken: accessToken, refreshToken: refreshToken, user: nil, method: .legacyImport))
            try await source.wipeAndDelete()
            return .imported
        }
    }
}
