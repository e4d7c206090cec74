public import Foundation

/// Refreshes the session's tokens: one refresh at a time in this process, once per token generation
/// across processes that share the store, and never in a loop.
///
/// Concurrent callers share the refresh in flight. Before presenting a refresh token the actor claims
/// it in the store (a compare-and-swap inside one transaction); a process that loses the claim waits
/// for the winner's tokens instead of presenting the old token, which a rotating server would treat
/// as reuse. The new refresh token is stored before the new access token is handed out.
public actor RefreshSession {
    private let gateway: any AuthenticationGateway
    private let repository: any SessionRepository
    private let policy: AuthenticationPolicy
    private let now: @Sendable () -> Date
    private let ownerID: String
    private let onWait: (@Sendable (WaitReason) -> Void)?
    private var inFlight: Task<Result<Session, AuthenticationError>, Never>?
    private let stormGuard: RefreshStormGuard
    private let stormKey: String
    private let onShared: (@Sendable () -> Void)?

    /// How many refreshes this instance performed against the server.
    public private(set) var refreshCount = 0

    /// Creates the use case.
    /// - Parameters:
    ///   - ownerID: identifies this process's claims in the shared store.
    ///   - onWait: told once, after a second, when another process's refresh keeps this one waiting.
    ///   - stormGuard: counts refreshes against the policy's limits; share one (the composition root
    ///     shares ``RefreshStormGuard/processWide``) so that all accounts count together.
    ///   - stormKey: the account (and store) this session's refreshes count against in `stormGuard`.
    ///   - onShared: told each time a caller gets a refresh it did not present itself: one in flight in
    ///     this process, or one another process stored.
    public init(
        gateway: any AuthenticationGateway, repository: any SessionRepository, policy: AuthenticationPolicy,
        ownerID: String, now: @escaping @Sendable () -> Date, onWait: (@Sendable (WaitReason) -> Void)? = nil,
        stormGuard: RefreshStormGuard = RefreshStormGuard(), stormKey: String = "", onShared: (@Sendable () -> Void)? = nil
    ) {
        self.onShared = onShared
        self.stormGuard = stormGuard
        self.stormKey = stormKey
        self.onWait = onWait
        self.gateway = gateway
        self.repository = repository
        self.policy = policy
        self.ownerID = ownerID
        self.now = now
    }

    /// Returns a session newer than `stale`: one another caller or process already stored, or the
    /// result of a refresh made now.
    /// - Throws: ``AuthenticationError/sessionExpired`` when the server rejected the refresh token
    ///   (the session is deleted), ``AuthenticationError/refreshInterrupted`` when it did so after another
    ///   process's refresh ended mid-request; ``AuthenticationError/temporarilyUnavailable(_:)`` when it could
    ///   not answer, or did not answer the last try a moment ago (the pause after it: the server is not
    ///   asked; the session is kept); ``AuthenticationError/refreshStorm(refreshes:windowSeconds:)``;
    ///   ``AuthenticationError/storageFailed(_:)`` beginning with ``rotationLost`` when the server rotated the
    ///   token and the store could not keep the new one in time; the store's own errors otherwise.
    public func refresh(replacing stale: Session) async throws(AuthenticationError) -> Session {
        if let inFlight {
            onShared?()
            return try await inFlight.value.get()
        }
        let task = Task { await self.performRefresh(replacing: stale) }
        inFlight = task
        let result = await task.value
        inFlight = nil
        return try result.get()
    }

    private func performRefresh(replacing stale: Session) async -> Result<Session, AuthenticationError> {
        do throws(AuthenticationError) {
            return .success(try await claimAndRefresh(replacing: stale))
        } catch {
            return .failure(error)
        }
    }

    private func claimAndRefresh(replacing stale: Session) async throws(AuthenticationError) -> Session {
        // Before any claim: a refusal here must leave another's claim, and its "sent" mark, as they were.
        do throws(AuthenticationError) {
            try stormGuard.checkPause(account: stormKey, at: now())
        } catch {
            // Paused, yet another process may have refreshed (or ended) the session meanwhile: say so.
            guard let stored = try await repository.load() else { throw .notSignedIn }
            if !stored.isSameGeneration(as: stale) {
                onShared?()
                return stored
            }
            throw error
        }
        var waitingSince: Date?
        var told = false
        while true {
            let claimedAt = ContinuousClock.now
            let instant = now()
            switch try await repository.claimRefresh(replacing: stale, owner: ownerID, lease: policy.refreshLease, now: instant) {
            case .superseded(let current):
                onShared?()
                return current
            case .signedOut:
                throw .notSignedIn
            case .heldByAnother:
                let since = waitingSince ?? instant
                waitingSince = since
                if !told, instant.timeIntervalSince(since) >= 1, let onWait {
                    told = true
                    onWait(.anotherProcessRefresh)
                }
                try? await Task.sleep(for: .milliseconds(policy.refreshPollMilliseconds))
                continue
            case .claimed:
                // Taken over between the claim and its mark (its owner was thought gone): claim again.
                guard let refreshed = try await refreshClaimed(stale, takingOver: false, claimedAt: claimedAt) else {
                    continue
                }
                return refreshed
            case .takenOver:
                guard let refreshed = try await refreshClaimed(stale, takingOver: true, claimedAt: claimedAt) else {
                    continue
                }
                return refreshed
            }
        }
    }

    /// Presents the claimed session's refresh token and stores the result; `nil` when the claim was
    /// lost before anything was sent. `takingOver`: the claim was another's, marked sent, so the token
    /// may have been spent by a refresh that never completed. `claimedAt`: just before the claim was
    /// asked for, on the monotonic clock (its lease runs from about then).
    private func refreshClaimed(_ current: Session, takingOver: Bool, claimedAt: ContinuousClock.Instant)
        async throws(AuthenticationError) -> Session?
    {
        do throws(AuthenticationError) {
            try admitRefresh()
            // The mark, committed before the request leaves, tells whoever finds this claim later whether
            // the token may have been spent (see ``SessionRepository/markRefreshSent(replacing:owner:)``).
            guard try await repository.markRefreshSent(replacing: current, owner: ownerID) else { return nil }
            let refreshed = current.refreshed(with: try await present(current))
            guard try await storeRefreshed(refreshed, replacing: current, claimedAt: claimedAt) else {
                // The session changed while the server answered (a sign-out or a new sign-in): the
                // stored one wins, and the tokens just issued are revoked rather than left alive.
                if !refreshed.refreshToken.isSameToken(as: current.refreshToken) {
                    try? await gateway.revoke(refreshed.refreshToken)
                }
                guard let stored = try await repository.load() else { throw .notSignedIn }
                return stored
            }
            refreshCount += 1
            return refreshed
        } catch .sessionExpired {
            try await repository.deleteIfCurrent(current.refreshToken)
            throw takingOver ? .refreshInterrupted : .sessionExpired
        } catch {
            try? await repository.releaseRefresh(owner: ownerID)
            throw error
        }
    }

    /// Stores the refreshed session, trying again with growing pauses (0.1 s doubling to 2 s) while the
    /// write fails or the store cannot be reached: the server has already rotated the refresh token, so
    /// losing this write would leave only a superseded token behind. It tries for
    /// ``AuthenticationPolicy/completionRetrySeconds``, but stops ``leaseMargin`` before the claim's lease
    /// runs out: a waiter may then take the claim over and present the spent token, the session is as good
    /// as lost, and the caller should hear so promptly (a write after a takeover would store nothing
    /// anyway: the completion checks the claim is still its own). Each attempt reads what is stored
    /// first, so a write whose `COMMIT` went through unacknowledged is recognised, never repeated. The
    /// first attempt is always made, however little of the lease is left.
    /// - Throws: when it gives up on a rotated token, ``AuthenticationError/storageFailed(_:)`` saying the
    ///   session is lost (the next refresh will be refused); on a token the server did not rotate, the
    ///   store's error (the stored session still works).
    private func storeRefreshed(_ refreshed: Session, replacing current: Session, claimedAt: ContinuousClock.Instant)
        async throws(AuthenticationError) -> Bool
    {
        // Bounded by elapsed time on the monotonic clock, attempts included (a store that cannot be
        // reached may take seconds to say so), not by `now`, which a test's clock may hold still.
        let clock = ContinuousClock()
        let deadline = min(
            clock.now.advanced(by: .seconds(policy.completionRetrySeconds)),
            claimedAt.advanced(by: .seconds(policy.refreshLease) - Self.leaseMargin))
        var pause = 0.1
        while true {
            do {
                return try await repository.completeRefresh(replacing: current, with: refreshed, owner: ownerID)
            } catch {
                switch error {
                case .storageFailed(let reason), .storeUnavailable(let reason):
                    guard clock.now.advanced(by: .seconds(pause)) <= deadline else {
                        if refreshed.refreshToken.isSameToken(as: current.refreshToken) { throw error }
                        throw .storageFailed(Self.rotationLost + reason)
                    }
                    try? await Task.sleep(for: .seconds(pause))
                    pause = min(pause * 2, 2)
                default:
                    throw error
                }
            }
        }
    }

    /// How long before the claim's lease runs out the completion stops trying: room for the last
    /// attempt, and for a store whose lease runs on a clock of its own.
    static let leaseMargin: Duration = .seconds(5)

    /// What a completion that gave up on a rotated refresh token says before the store's reason.
    public static let rotationLost =
        "the server issued a new refresh token, but the store could not keep it in time, so the session is "
        + "probably lost (if its next refresh is refused, sign in again): "

    /// Presents the refresh token; tells the storm guard whether the server answered (any answer, a
    /// rejection too) or not.
    private func present(_ current: Session) async throws(AuthenticationError) -> TokenRefresh {
        do throws(AuthenticationError) {
            let tokens = try await gateway.refresh(current)
            stormGuard.answered(account: stormKey)
            return tokens
        } catch .temporarilyUnavailable(let reason) {
            stormGuard.unanswered(account: stormKey, at: now(), policy: policy)
            throw .temporarilyUnavailable(reason)
        } catch {
            stormGuard.answered(account: stormKey)
            throw error
        }
    }

    /// Records a refresh attempt, or refuses it when too many happened within the window, for this
    /// account or for all accounts sharing the guard.
    private func admitRefresh() throws(AuthenticationError) {
        try stormGuard.admit(account: stormKey, at: now(), policy: policy)
    }
}
