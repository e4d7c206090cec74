import Data
import Domain
import Foundation

/// The sessions of a gateway: each user's session is an account of the store (`gateway/<session id>`)
/// whose tokens are sealed under its cookie's key, refreshed by a ``RefreshSession`` of its own, so that
/// the calls of one session share one refresh in this process and, through the store's claim, across
/// every instance.
final class GatewaySessions: Sendable {
    private let store: any SecureItemStore
    private let gateway: any AuthenticationGateway
    private let policy: AuthenticationPolicy
    private let ownerID: String
    private let claimantIsGone: @Sendable (String) -> Bool
    private let now: @Sendable () -> Date
    private let onShared: @Sendable () -> Void
    private let stormGuard = RefreshStormGuard()
    private let refreshers = RefresherCache(capacity: 10_000)

    init(
        store: any SecureItemStore, gateway: any AuthenticationGateway, policy: AuthenticationPolicy, ownerID: String,
        claimantIsGone: @escaping @Sendable (String) -> Bool, now: @escaping @Sendable () -> Date,
        onShared: @escaping @Sendable () -> Void
    ) {
        self.onShared = onShared
        self.store = store
        self.gateway = gateway
        self.policy = policy
        self.ownerID = ownerID
        self.claimantIsGone = claimantIsGone
        self.now = now
    }

    /// The repository of `cookie`'s session.
    func repository(for cookie: SessionCookie) -> SealedSessionRepository {
        SealedSessionRepository(
            SecureStoreSessionRepository(store: store, account: cookie.account, claimantIsGone: claimantIsGone),
            cookie: cookie)
    }

    /// The use cases of `cookie`'s session: its refresher (one per session in this process) and the
    /// authorized call over it.
    func authorizedCall(for cookie: SessionCookie) -> PerformAuthorizedCall {
        let repository = repository(for: cookie)
        let refresher = refreshers.refresher(for: cookie) {
            RefreshSession(
                gateway: gateway, repository: repository, policy: policy, ownerID: ownerID, now: now,
                stormGuard: stormGuard, stormKey: cookie.sessionID, onShared: onShared)
        }
        return PerformAuthorizedCall(repository: repository, refresher: refresher, policy: policy, now: now)
    }

    /// Signs the new session in through ``SignIn``: the one way a session is stored.
    func signIn(issued session: Session, cookie: SessionCookie) async throws(AuthenticationError) -> Session {
        try await SignIn(gateway: gateway, repository: repository(for: cookie))(issued: session)
    }

    /// Signs `cookie`'s session out through ``SignOut``: its refresh token revoked, the session deleted.
    func signOut(_ cookie: SessionCookie) async throws(AuthenticationError) -> SignOutResult {
        refreshers.forget(cookie)
        return try await SignOut(gateway: gateway, repository: repository(for: cookie))()
    }

    /// Ends the sessions `logout` names through ``EndLoggedOutSessions`` (their tokens cannot be revoked
    /// without their cookies, and the issuer ended them anyway); the ids of those ended.
    func end(_ logout: IssuerLogout) async throws(AuthenticationError) -> [String] {
        let ended = try await EndLoggedOutSessions(
            catalog: GatewaySessionCatalog(store: store, claimantIsGone: claimantIsGone))(logout)
        for sessionID in ended { refreshers.forget(sessionID: sessionID) }
        return ended
    }
}
