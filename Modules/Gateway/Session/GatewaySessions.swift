import Data
import Domain
import Foundation
import Locking

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
    private let reads: SessionReadCache
    /// Revocation passes, one at a time (see ``revokeEnded(_:limit:yielding:stopping:)``).
    private let revocationPasses = OneAtATime()
    /// The sessions' revocation copies: written only when ``keepsCopies``, always revoked and removed once
    /// their sessions are gone (so that copies left by an earlier run with them on are not forgotten).
    let copies: StoreRevocationCopies
    /// Whether each session's refresh token is also kept under the store's key alone, so that a session
    /// ended without its cookie can be revoked at the issuer.
    let keepsCopies: Bool

    init(
        store: any SecureItemStore, gateway: any AuthenticationGateway, policy: AuthenticationPolicy, ownerID: String,
        issuer: String, clientID: String, keepsCopies: Bool = false, claimantIsGone: @escaping @Sendable (String) -> Bool,
        now: @escaping @Sendable () -> Date, onShared: @escaping @Sendable () -> Void,
        counted: @escaping @Sendable (_ fromMemory: Bool) -> Void = { _ in }
    ) {
        reads = SessionReadCache(store: store, capacity: 10_000, counted: counted)
        copies = StoreRevocationCopies(store: store, issuer: issuer, clientID: clientID)
        self.keepsCopies = keepsCopies
        self.onShared = onShared
        self.store = store
        self.gateway = gateway
        self.policy = policy
        self.ownerID = ownerID
        self.claimantIsGone = claimantIsGone
        self.now = now
    }

    /// The repository of `cookie`'s session; `received` is when the request it serves was read whole
    /// (see ``SessionReadCache/session(_:key:received:load:)``).
    func repository(for cookie: SessionCookie, received: ContinuousClock.Instant? = nil) -> SealedSessionRepository {
        SealedSessionRepository(
            SecureStoreSessionRepository(store: store, account: cookie.account, claimantIsGone: claimantIsGone),
            cookie: cookie, copies: keepsCopies ? copies : nil, reads: reads, received: received)
    }

    /// The use cases of `cookie`'s session for a request read whole at `received`: its refresher (one per
    /// session in this process, over a repository of its own, which outlives the request) and the
    /// authorized call over it.
    func authorizedCall(for cookie: SessionCookie, received: ContinuousClock.Instant? = nil) -> PerformAuthorizedCall {
        let refresher = refreshers.refresher(for: cookie) {
            RefreshSession(
                gateway: gateway, repository: repository(for: cookie), policy: policy, ownerID: ownerID, now: now,
                stormGuard: stormGuard, stormKey: cookie.sessionID, onShared: onShared)
        }
        return PerformAuthorizedCall(
            repository: repository(for: cookie, received: received), refresher: refresher, policy: policy, now: now)
    }

    /// Drops every session kept in memory (see ``SessionReadCache/forgetAll()``).
    func forgetKeptSessions() {
        reads.forgetAll()
    }

    /// Signs the new session in through ``SignIn``: the one way a session is stored.
    func signIn(issued session: Session, cookie: SessionCookie) async throws(AuthenticationError) -> Session {
        try await SignIn(gateway: gateway, repository: repository(for: cookie))(issued: session)
    }

    /// Signs `cookie`'s session out through ``SignOut``: its refresh token revoked, the session deleted
    /// (and its revocation copy, once the token it holds is revoked).
    func signOut(_ cookie: SessionCookie) async throws(AuthenticationError) -> SignOutResult {
        refreshers.forget(cookie)
        defer { reads.forget(cookie.sessionID) }
        let repository = repository(for: cookie)
        // Read first: its copy (kept by this instance or another) goes once the token it holds is revoked.
        let stored = try? await repository.load()
        let result = try await SignOut(gateway: gateway, repository: repository)()
        if let stored, result.revocation == .revoked {
            _ = try? await copies.remove(cookie.sessionID, ifStill: stored.refreshToken)
        }
        return result
    }

    /// Ends the sessions `logout` names through ``EndLoggedOutSessions``; the ids of those ended. Their
    /// tokens are revoked by ``revokeEnded(_:limit:yielding:stopping:)`` when copies are kept.
    func end(_ logout: IssuerLogout) async throws(AuthenticationError) -> [String] {
        let ended = try await EndLoggedOutSessions(catalog: catalog)(logout)
        for sessionID in ended {
            refreshers.forget(sessionID: sessionID)
            reads.forget(sessionID)
        }
        return ended
    }

    /// Revokes at the issuer, through ``RevokeEndedSessions``, the kept copies of sessions that are gone
    /// (only those of `sessionIDs` when given), as of when the pass begins.
    ///
    /// One pass at a time in this process: a back-channel logout's pass and a sweep's would otherwise both
    /// read a copy before either removed it, and both send its token. A pass that is `yielding` (a sweep's)
    /// stops after the send in flight when another pass waits its turn (``RevokeEndedSessions/Outcome/yielded``),
    /// so that a back-channel logout's waits for one send, not for up to `limit`; the sweep goes on with a pass
    /// of its own after it, from a fresh read. A token may still be sent twice (across
    /// instances, or by a sweep between a sign-out's removal of its session and of its copy), which the
    /// issuer answers as it did the first time (RFC 7009): a copy is removed only once the issuer answered
    /// for its token or the token expired, so that none is dropped unrevoked. Any pass, one that waited its
    /// turn too, sends nothing more once `stopping` says the gateway stops (``RevokeEndedSessions/Outcome/stopped``).
    func revokeEnded(
        _ sessionIDs: Set<String>? = nil, limit: Int = .max, yielding: Bool = false, stopping: () -> Bool = { false }
    ) async throws(AuthenticationError) -> RevokeEndedSessions.Outcome {
        let passes = revocationPasses
        return try await passes.run { () async throws(AuthenticationError) -> RevokeEndedSessions.Outcome in
            // The time once the pass may begin: a token that expired while it waited is removed unsent.
            try await RevokeEndedSessions(gateway: gateway, catalog: catalog, copies: copies)(
                sessionIDs, now: now(), limit: limit,
                yieldingWhen: { yielding && passes.waitingCount > 0 }, stoppingWhen: stopping)
        }
    }

    /// Returns once `count` revocation passes wait for their turn (for tests).
    func untilRevocationPassesWait(_ count: Int) async {
        await revocationPasses.untilWaiting(count)
    }

    private var catalog: GatewaySessionCatalog {
        GatewaySessionCatalog(store: store, claimantIsGone: claimantIsGone)
    }
}
