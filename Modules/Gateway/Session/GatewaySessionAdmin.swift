public import Data
public import Domain
public import Foundation

/// A gateway's sessions for its operators, over the store every instance shares: list them, end them (by
/// user or by session, through ``EndSessions``: every instance refuses them at their next call, since each
/// call reads its session from the store), and sweep what is over in bounded batches. What
/// `hardtack gateway sessions` and `revoke` run, and what an adopter's own admin page can call.
public struct GatewaySessionAdmin: Sendable {
    private let store: any SecureItemStore
    private let catalog: GatewaySessionCatalog

    /// The sessions of the gateways on `store`.
    public init(store: any SecureItemStore) {
        self.store = store
        catalog = GatewaySessionCatalog(store: store)
    }

    /// Every readable gateway session, or only `user`'s (by the issuer's `sub`), by sign-in time.
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` when the store cannot be read.
    public func sessions(user: String? = nil) async throws(AuthenticationError) -> [GatewaySessionSummary] {
        var summaries: [GatewaySessionSummary] = []
        for stored in try await SecureStoreSessionRepository.storedSessions(in: store) {
            guard let sessionID = SessionCookie.sessionID(of: stored.account), case .success(let session?) = stored.session,
                user == nil || session.user?.id == user
            else { continue }
            summaries.append(
                GatewaySessionSummary(
                    sessionID: sessionID, user: session.user, signedInAt: stored.signedInAt,
                    lastUsedAt: await SessionActivity.storedUse(stored.account, in: store),
                    expiresAt: session.refreshToken.expiresAt))
        }
        return summaries.sorted { ($0.signedInAt ?? .distantPast, $0.sessionID) < ($1.signedInAt ?? .distantPast, $1.sessionID) }
    }

    /// Ends every session of `user` (the issuer's `sub`); the ids of those ended.
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)``; those ended before it stay ended.
    public func end(user: String) async throws(AuthenticationError) -> [String] {
        try await EndSessions(catalog: catalog)(.user(user))
    }

    /// Ends the session `sessionID` names; whether there was one to end.
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)``.
    public func end(session sessionID: String) async throws(AuthenticationError) -> Bool {
        !(try await EndSessions(catalog: catalog)(.sessions([sessionID]))).isEmpty
    }

    /// Removes what is over at `now`, at most `batch` of each kind: sessions whose refresh token expired,
    /// sessions whose recorded last use (else their sign-in) is more than `idleTimeout` old (`nil`: none is
    /// idle), and logout tokens past the time a replay would be refused for its age.
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)``; what was removed before it stays removed.
    public func sweep(idleTimeout: TimeInterval?, now: Date, batch: Int = 500) async throws(AuthenticationError)
        -> GatewaySweep
    {
        var sweep = GatewaySweep()
        let ending = EndSessions(catalog: catalog)
        sweep.expired = try await ending(.expired(at: now), limit: batch).count
        if let idleTimeout {
            var idle = Set<String>()
            for stored in try await SecureStoreSessionRepository.storedSessions(in: store) where idle.count < batch {
                guard let sessionID = SessionCookie.sessionID(of: stored.account) else { continue }
                let used = await SessionActivity.storedUse(stored.account, in: store) ?? stored.signedInAt
                if let used, now.timeIntervalSince(used) > idleTimeout { idle.insert(sessionID) }
            }
            if !idle.isEmpty { sweep.idle = try await ending(.sessions(idle), limit: batch).count }
        }
        sweep.logoutTokens = try await LogoutTokenLedger(store: store).sweep(now: now, batch: batch)
        sweep.filledBatch = max(sweep.expired, sweep.idle, sweep.logoutTokens) >= batch
        return sweep
    }
}
