public import Foundation

/// Ends stored sessions that an operator names, or that a sweep finds over: each is deleted, so that the
/// next call of any process that serves it finds no session. Nothing is revoked at the issuer here: the
/// tokens of a catalog's sessions open only with their own keys (a gateway's, with the user's cookie);
/// ``RevokeEndedSessions`` revokes them afterwards from copies, where copies are kept.
public struct EndSessions: Sendable {
    /// Which sessions to end.
    public enum Selection: Sendable, Hashable {
        /// Every session of the user the issuer names `subject` (`sub`).
        case user(String)
        /// The sessions under these keys.
        case sessions(Set<String>)
        /// Every session whose refresh token had expired at this time: none of them can be refreshed again.
        case expired(at: Date)
    }

    private let catalog: any SessionCatalog

    /// Creates the use case.
    public init(catalog: any SessionCatalog) {
        self.catalog = catalog
    }

    /// Whether `selection` names the session stored under `key`.
    public static func selects(_ selection: Selection, key: String, session: Session) -> Bool {
        switch selection {
        case .user(let subject): session.user?.id == subject
        case .sessions(let keys): keys.contains(key)
        case .expired(let now): session.refreshToken.expiresAt.map { $0 <= now } ?? false
        }
    }

    /// Deletes the sessions `selection` names, at most `limit` of them (a sweep's batch), and returns the
    /// keys of those deleted (one another process deleted meanwhile is not counted).
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` when the store cannot be read or written;
    ///   sessions deleted before that stay deleted, and the same selection can be ended again.
    public func callAsFunction(_ selection: Selection, limit: Int = .max) async throws(AuthenticationError) -> [String] {
        var ended: [String] = []
        if case .sessions(let keys) = selection {
            // Named by key: nothing to read first.
            for key in keys.sorted() where ended.count < limit {
                if try await catalog.repository(for: key).delete() { ended.append(key) }
            }
            return ended
        }
        for (key, session) in try await catalog.sessions() where ended.count < limit {
            guard Self.selects(selection, key: key, session: session) else { continue }
            if try await catalog.repository(for: key).delete() { ended.append(key) }
        }
        return ended
    }
}
