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

    /// Every readable gateway session, or only `user`'s (by the issuer's `sub`), by sign-in time: two
    /// queries, whatever their number.
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` when the store cannot be read.
    public func sessions(user: String? = nil) async throws(AuthenticationError) -> [GatewaySessionSummary] {
        let uses = try await SessionActivity.storedUses(in: store)
        var summaries: [GatewaySessionSummary] = []
        for stored in try await SecureStoreSessionRepository.storedSessions(in: store) {
            guard let sessionID = SessionCookie.sessionID(of: stored.account), case .success(let session?) = stored.session,
                user == nil || session.user?.id == user
            else { continue }
            let use = uses[SecureStoreSessionRepository.service(for: stored.account)].flatMap(SessionActivity.date)
            summaries.append(
                GatewaySessionSummary(
                    sessionID: sessionID, user: session.user, signedInAt: stored.signedInAt, lastUsedAt: use,
                    expiresAt: session.refreshToken.expiresAt))
        }
        return summaries.sorted {
            ($0.signedInAt ?? .distantPast, $0.sessionID) < ($1.signedInAt ?? .distantPast, $1.sessionID)
        }
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
    /// idle), records of use left behind by a call that ended after its session, and logout tokens past the
    /// time a replay would be refused for its age. It reads the sessions and the records of use in one
    /// query each; a store that cannot be read stops it before anything is removed for lack of a record.
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)``; what was removed before it stays removed.
    public func sweep(idleTimeout: TimeInterval?, now: Date, batch: Int = 500) async throws(AuthenticationError)
        -> GatewaySweep
    {
        let stored = try await SecureStoreSessionRepository.storedSessions(in: store)
        let uses = try await SessionActivity.storedUses(in: store)
        var services = Set<String>()
        var expired = Set<String>()
        var idle = Set<String>()
        for entry in stored {
            let service = SecureStoreSessionRepository.service(for: entry.account)
            services.insert(service)
            guard let sessionID = SessionCookie.sessionID(of: entry.account), case .success(let session?) = entry.session
            else { continue }
            if EndSessions.selects(.expired(at: now), key: sessionID, session: session) {
                expired.insert(sessionID)
            } else if let idleTimeout, let used = uses[service].flatMap(SessionActivity.date) ?? entry.signedInAt,
                now.timeIntervalSince(used) > idleTimeout
            {
                idle.insert(sessionID)
            }
        }
        var sweep = GatewaySweep()
        let ending = EndSessions(catalog: catalog)
        sweep.expired = try await ending(.sessions(expired), limit: batch).count
        sweep.idle = try await ending(.sessions(idle), limit: batch).count
        for service in uses.keys.sorted() where !services.contains(service) && sweep.orphanedRecords < batch {
            guard let account = SecureStoreSessionRepository.account(ofService: service),
                SessionCookie.sessionID(of: account) != nil
            else { continue }
            do throws(SecureStoreError) {
                try await store.delete(SessionActivity.item(account, in: store))
                sweep.orphanedRecords += 1
            } catch .itemNotFound {
                // Another instance swept it first.
            } catch {
                throw .fromStore(error)
            }
        }
        sweep.logoutTokens = try await LogoutTokenLedger(store: store).sweep(now: now, batch: batch)
        sweep.filledBatch = max(sweep.expired, sweep.idle, sweep.orphanedRecords, sweep.logoutTokens) >= batch
        return sweep
    }
}
