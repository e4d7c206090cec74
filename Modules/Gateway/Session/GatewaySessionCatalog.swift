public import Data
public import Domain

/// A store's gateway sessions as a catalog, keyed by session id: what the store reads of them without any
/// cookie (who, and the issuer's session id; the tokens stay sealed).
public struct GatewaySessionCatalog: SessionCatalog {
    let store: any SecureItemStore
    let claimantIsGone: @Sendable (String) -> Bool

    /// The gateway sessions of `store`.
    public init(store: any SecureItemStore, claimantIsGone: @escaping @Sendable (String) -> Bool = { _ in false }) {
        self.store = store
        self.claimantIsGone = claimantIsGone
    }

    /// Every gateway session that can be read, by session id.
    public func sessions() async throws(AuthenticationError) -> [(key: String, session: Session)] {
        var found: [(key: String, session: Session)] = []
        for stored in try await SecureStoreSessionRepository.storedSessions(in: store) {
            guard let sessionID = SessionCookie.sessionID(of: stored.account), case .success(let session?) = stored.session
            else { continue }
            found.append((sessionID, session))
        }
        return found
    }

    /// The id of every stored gateway session, readable or not: every account with a session record, read
    /// by attributes alone (no session is decrypted).
    public func keys() async throws(AuthenticationError) -> Set<String> {
        do throws(SecureStoreError) {
            return Set(try await SecureStoreSessionRepository.accountNames(in: store).compactMap(SessionCookie.sessionID(of:)))
        } catch {
            throw .fromStore(error)
        }
    }

    /// The repository of the session `key` names (its tokens sealed: enough to delete it, not to use it).
    public func repository(for key: String) -> any SessionRepository {
        SecureStoreSessionRepository(store: store, account: Self.account(key), claimantIsGone: claimantIsGone)
    }

    /// The store's account of the session `key` names; a key that is no session id names none that exists.
    static func account(_ key: String) -> AccountName {
        AccountName(SessionCookie.accountPrefix + key) ?? AccountName(SessionCookie.accountPrefix + "-")!
    }
}
