public import Domain
public import Foundation

/// The refresh claim of ``SecureStoreSessionRepository``: one refresh per session generation, across
/// the processes and machines that share the store (see ``SessionRepository``). The claim is an item
/// of its own beside the session's, written in the same transactions.
extension SecureStoreSessionRepository {
    /// Claims the refresh of `stale` for `owner` in one transaction: granted, held, or superseded.
    public func claimRefresh(replacing stale: Session, owner: String, lease: TimeInterval, now: Date)
        async throws(AuthenticationError) -> RefreshClaim
    {
        // Whether another's claimant has ended is asked before the write transaction, not inside it: on
        // PostgreSQL that is a query on another connection, seconds long after a cut, and the store's
        // lock (and the group's digest row) must not be held meanwhile. The transaction then takes the
        // claim over only if it is still that owner's.
        // The same read answers a waiter's poll without a write transaction when nothing is to be written:
        // a newer generation stored, or a claim that still holds.
        // Both the read and the question block their thread, so they run on the store's threads too.
        let (answered, endedOwner) = await StoreThreads.run { () -> (RefreshClaim?, String?) in
            guard let observed = try? read(from: store) else { return (nil, nil) }
            if !observed.session.isSameGeneration(as: stale) { return (.superseded(observed.session), nil) }
            if let claim = observed.claim, claim.owner != owner {
                if claimantIsGone(claim.owner) {
                    return (nil, claim.owner)
                } else if let instant = try? store.sharedClock() ?? now, Date(millisecondsSince1970: claim.until) > instant {
                    return (.heldByAnother(until: Date(millisecondsSince1970: claim.until)), nil)
                }
            }
            return (nil, nil)
        }
        if let answered { return answered }
        return try await run {
            try store.transaction { transaction -> RefreshClaim in
                guard let current = try read(from: transaction) else { return .signedOut }
                guard current.session.isSameGeneration(as: stale) else { return .superseded(current.session) }
                // Leases are judged by the store's clock when it has one, so machines sharing a
                // database agree on when a claim ran out whatever their own clocks say.
                let instant = try transaction.sharedClock() ?? now
                // A claim whose owner ended holds nobody back: it can finish nothing. One that ended
                // after sending may have spent the token; the next caller presents it anyway (see
                // ``SessionRepository``), which a rotating server may answer as reuse.
                if let claim = current.claim, claim.owner != owner,
                    Date(millisecondsSince1970: claim.until) > instant, claim.owner != endedOwner
                {
                    return .heldByAnother(until: Date(millisecondsSince1970: claim.until))
                }
                // The same owner claiming again keeps its own mark: it may have sent before.
                let sent = current.claim.map { $0.owner == owner && $0.maySpendToken } ?? false
                try transaction.addOrUpdate(
                    item(Account.claim),
                    value: RefreshClaimDTO(
                        owner: owner, until: instant.addingTimeInterval(lease).millisecondsSince1970, sent: sent))
                // A claim marked sent, whoever's, may have spent the token: its own owner's earlier request
                // too, when it failed after leaving (a timeout), so a rejection now is an interrupted refresh.
                let interrupted = current.claim?.maySpendToken ?? false
                return interrupted ? .takenOver : .claimed
            }
        }
    }

    /// Records in `owner`'s claim that its refresh request has left; whether the claim was still its own.
    public func markRefreshSent(replacing stale: Session, owner: String) async throws(AuthenticationError) -> Bool {
        try await run {
            try store.transaction { transaction -> Bool in
                guard let current = try read(from: transaction), current.session.isSameGeneration(as: stale),
                    var claim = current.claim, claim.owner == owner
                else { return false }
                // A lease already run out by the store's clock may be another's to take: claim again.
                if let clock = try transaction.sharedClock(), Date(millisecondsSince1970: claim.until) <= clock {
                    return false
                }
                if claim.sent == true { return true }
                claim.sent = true
                try transaction.addOrUpdate(item(Account.claim), value: claim)
                return true
            }
        }
    }

    /// Stores `refreshed` in place of `stale` and ends `owner`'s claim, if the claim is still its own.
    public func completeRefresh(replacing stale: Session, with refreshed: Session, owner: String)
        async throws(AuthenticationError) -> Bool
    {
        try await completeRefresh(replacing: stale, with: refreshed, owner: owner, alongside: nil)
    }

    /// ``completeRefresh(replacing:with:owner:)``, writing `companion` in the same transaction as `refreshed`.
    public func completeRefresh(
        replacing stale: Session, with refreshed: Session, owner: String, alongside companion: CompanionItem?
    ) async throws(AuthenticationError) -> Bool {
        try await run {
            try store.transaction { transaction -> Bool in
                guard let current = try read(from: transaction) else { return false }
                // A first attempt whose commit went through unacknowledged (a connection lost after
                // COMMIT was sent) left exactly this session: it was stored.
                if current.session.isSameGeneration(as: refreshed) { return true }
                guard current.session.isSameGeneration(as: stale) else { return false }
                // Fenced by owner too: a claim taken over (this process was thought gone) is the new
                // owner's generation to finish.
                if let claim = current.claim, claim.owner != owner { return false }
                try write(
                    refreshed, to: transaction, replacedMayHaveSecret: current.session.issuer?.clientSecret != nil || current.session.identity != nil)
                try transaction.delete(item(Account.claim))
                if let companion { try transaction.addOrUpdate(companion.attributes, data: companion.data) }
                return true
            }
        }
    }

    /// Gives up `owner`'s claim, storing no session (a claim whose request left stays, its lease ended).
    public func releaseRefresh(owner: String) async throws(AuthenticationError) {
        try await run {
            try store.transaction { transaction in
                guard let current = try read(from: transaction), var claim = current.claim, claim.owner == owner else {
                    return
                }
                // A claim marked sent stays, its lease ended, as the record that the token may have been
                // spent (the request may have reached the server before it failed); nobody waits on it.
                guard claim.maySpendToken else {
                    try transaction.delete(item(Account.claim))
                    return
                }
                claim.until = 0
                try transaction.addOrUpdate(item(Account.claim), value: claim)
            }
        }
    }
}
