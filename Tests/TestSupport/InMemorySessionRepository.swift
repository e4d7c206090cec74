public import Domain
public import Foundation

/// A session repository in memory with the same claim semantics as the store-backed one, for use-case
/// tests. It can be told to fail like a locked store.
public final class InMemorySessionRepository: SessionRepository {
    private struct State {
        var session: Session?
        var lease: (owner: String, until: Date, sent: Bool)?
        var unavailable: String?
        /// How many more calls fail before the store heals by itself; `nil` while it stays as set.
        var unavailableCalls: Int?
        var unreadable: String?
        var writes = 0
        var refused = 0
        var beforeMark: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    /// Starts with `session` stored, or none.
    public init(session: Session? = nil) {
        state.withLock { $0.session = session }
    }

    /// The stored session, read without the failure switch.
    public var stored: Session? { state.withLock { $0.session } }

    /// How many writes succeeded.
    public var writeCount: Int { state.withLock { $0.writes } }

    /// How many calls failed because the store was made unavailable.
    public var refusedCount: Int { state.withLock { $0.refused } }

    /// Makes every call fail with ``AuthenticationError/storeUnavailable(_:)``, or heals it with `nil`.
    public func setUnavailable(_ reason: String?) {
        state.withLock {
            $0.unavailable = reason
            $0.unavailableCalls = nil
        }
    }

    /// Makes the next `count` calls fail with ``AuthenticationError/storeUnavailable(_:)``, then heals by
    /// itself: a restart that ends after so many attempts, with no timing involved.
    public func setUnavailable(_ reason: String, forCalls count: Int) {
        state.withLock {
            $0.unavailable = count > 0 ? reason : nil
            $0.unavailableCalls = count > 0 ? count : nil
        }
    }

    /// Makes loads fail with ``AuthenticationError/storeUnavailable(_:)`` while writes still work, like
    /// a session record from a newer version.
    public func setUnreadable(_ reason: String?) {
        state.withLock { $0.unreadable = reason }
    }

    private func withState<Result>(_ body: (inout State) throws(AuthenticationError) -> Result) throws(AuthenticationError)
        -> Result
    {
        let outcome: Swift.Result<Result, AuthenticationError> = state.withLock { state in
            if let reason = state.unavailable {
                state.refused += 1
                if let calls = state.unavailableCalls {
                    // The last refused call heals the store.
                    if calls > 1 {
                        state.unavailableCalls = calls - 1
                    } else {
                        (state.unavailable, state.unavailableCalls) = (nil, nil)
                    }
                }
                return .failure(.storeUnavailable(reason))
            }
            do throws(AuthenticationError) { return .success(try body(&state)) } catch { return .failure(error) }
        }
        return try outcome.get()
    }

    public func load() throws(AuthenticationError) -> Session? {
        try withState { state throws(AuthenticationError) in
            if let reason = state.unreadable { throw .storeUnavailable(reason) }
            return state.session
        }
    }

    public func replace(with session: Session) throws(AuthenticationError) {
        try withState { state in
            state.session = session
            state.lease = nil
            state.writes += 1
        }
    }

    public func delete() throws(AuthenticationError) -> Bool {
        try withState { state in
            defer {
                state.session = nil
                state.lease = nil
            }
            return state.session != nil
        }
    }

    public func claimRefresh(replacing stale: Session, owner: String, lease: TimeInterval, now: Date)
        throws(AuthenticationError) -> RefreshClaim
    {
        try withState { state in
            guard let session = state.session else { return .signedOut }
            guard session.isSameGeneration(as: stale) else { return .superseded(session) }
            if let lease = state.lease, lease.owner != owner, lease.until > now { return .heldByAnother(until: lease.until) }
            let sent = state.lease.map { $0.owner == owner && $0.sent } ?? false
            let interrupted = state.lease.map { $0.sent } ?? false
            state.lease = (owner, now.addingTimeInterval(lease), sent)
            return interrupted ? .takenOver : .claimed
        }
    }

    /// Whether the claim on the stored generation is marked sent, and by whom.
    public var claim: (owner: String, sent: Bool)? { state.withLock { $0.lease.map { ($0.owner, $0.sent) } } }

    /// Runs `action` once, at the next ``markRefreshSent(replacing:owner:)``, before it looks at the claim.
    public func setBeforeMark(_ action: (@Sendable () -> Void)?) {
        state.withLock { $0.beforeMark = action }
    }

    public func markRefreshSent(replacing stale: Session, owner: String) throws(AuthenticationError) -> Bool {
        let action = state.withLock { state in
            defer { state.beforeMark = nil }
            return state.beforeMark
        }
        action?()
        return try withState { state in
            guard let session = state.session, session.isSameGeneration(as: stale), let lease = state.lease,
                lease.owner == owner
            else { return false }
            state.lease?.sent = true
            return true
        }
    }

    public func completeRefresh(replacing stale: Session, with refreshed: Session, owner: String)
        throws(AuthenticationError) -> Bool
    {
        try withState { state in
            guard let current = state.session, current.isSameGeneration(as: stale) else { return false }
            if let lease = state.lease, lease.owner != owner { return false }
            state.session = refreshed
            state.lease = nil
            state.writes += 1
            return true
        }
    }

    public func releaseRefresh(owner: String) throws(AuthenticationError) {
        try withState { state in
            guard let lease = state.lease, lease.owner == owner else { return }
            // As the store's repository: a claim marked sent stays, its lease ended.
            state.lease = lease.sent ? (lease.owner, .distantPast, true) : nil
        }
    }

    public func deleteIfCurrent(_ refreshToken: RefreshToken) throws(AuthenticationError) -> Bool {
        try withState { state in
            guard let current = state.session, current.refreshToken.isSameToken(as: refreshToken) else { return false }
            state.session = nil
            state.lease = nil
            return true
        }
    }
}
