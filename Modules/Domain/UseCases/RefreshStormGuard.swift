public import Foundation

/// Counts the refreshes presented to servers by every ``RefreshSession`` that shares it, per account and
/// in all, and refuses one more once either count reaches its limit within the policy's window: a bug
/// that refreshes in a loop, for one account or for many at once, becomes an error instead of a flood.
/// A refresh the server did not answer does not count; instead that account's next one waits a pause
/// that doubles while the server stays silent, so an outage is not hammered and, once it is over, no
/// account is left refused for the rest of a window.
///
/// One guard per process is the intent (the composition root shares ``processWide``), so that several
/// handles on one account, or every account of a backend, count together. Safe to share across
/// threads: its state is behind a mutex.
public final class RefreshStormGuard: Sendable {
    /// The guard every app container of this process shares.
    public static let processWide = RefreshStormGuard()

    private struct State {
        var perAccount: [String: [Date]] = [:]
        var all: [Date] = []
        var paused: [String: Pause] = [:]
        /// How many pauses may be kept before the ended ones are pruned (grows with what remains, so a
        /// large outage does not prune on every call).
        var pruneAt = 1024
    }

    /// An account's wait after refreshes the server did not answer.
    private struct Pause {
        var until: Date
        var seconds: Double
    }

    /// Guards `state`: a pthread mutex (`NSLock`), whose hand-offs ThreadSanitizer sees (it does not see
    /// Synchronization's `Mutex`'s on Linux, and reported every shared guard as a race).
    private let lock = NSLock()
    // Safety: read and written only in ``withState(_:)``, while `lock` is held.
    private nonisolated(unsafe) var state = State()

    /// Runs `body` with the counts, no other thread holding them meanwhile.
    private func withState<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    /// A guard with no refreshes counted yet.
    public init() {}

    /// Records a refresh of `account` at `instant`, or refuses it.
    /// - Throws: ``AuthenticationError/refreshStorm(refreshes:windowSeconds:)`` when `account` already
    ///   made ``AuthenticationPolicy/maxRefreshesPerWindow`` refreshes, or all accounts together
    ///   ``AuthenticationPolicy/maxRefreshesPerWindowAllAccounts``, within
    ///   ``AuthenticationPolicy/refreshWindow`` seconds before `instant`.
    public func admit(account: String, at instant: Date, policy: AuthenticationPolicy) throws(AuthenticationError) {
        let refused: Int? = withState { state in
            let window = policy.refreshWindow
            var mine = state.perAccount[account, default: []]
            mine.removeAll { instant.timeIntervalSince($0) > window }
            state.all.removeAll { instant.timeIntervalSince($0) > window }
            if mine.count >= policy.maxRefreshesPerWindow {
                state.perAccount[account] = mine
                return mine.count
            }
            if state.all.count >= policy.maxRefreshesPerWindowAllAccounts { return state.all.count }
            mine.append(instant)
            state.perAccount[account] = mine
            state.all.append(instant)
            // Accounts with nothing left in the window are forgotten, so the table stays as small as the
            // set of accounts refreshing now.
            // (A policy with no real limit for all accounts, a gateway's, still keeps the table bounded.)
            if state.perAccount.count > 2 * max(1, min(policy.maxRefreshesPerWindowAllAccounts, 100_000)) {
                state.perAccount = state.perAccount.filter { !$0.value.allSatisfy { instant.timeIntervalSince($0) > window } }
            }
            return nil
        }
        if let refused { throw .refreshStorm(refreshes: refused, windowSeconds: Int(policy.refreshWindow)) }
    }

    /// Refuses a refresh of `account` at `instant` while its pause after an unanswered one lasts: ask
    /// before claiming the refresh, so that a refusal leaves every claim as it was.
    /// - Throws: ``AuthenticationError/temporarilyUnavailable(_:)``, saying when the next try may be.
    public func checkPause(account: String, at instant: Date) throws(AuthenticationError) {
        let left = withState { state -> Double? in
            guard let pause = state.paused[account], instant < pause.until else { return nil }
            let left = pause.until.timeIntervalSince(instant)
            // More left than the pause is long: the clock stepped back. The pause is over, not hours long.
            guard left <= pause.seconds else {
                state.paused[account] = nil
                return nil
            }
            return left
        }
        if let left {
            throw .temporarilyUnavailable(
                String(format: "the server did not answer this session's last refresh; the next try is in %.1f s", left))
        }
    }

    /// Records that the refresh of `account` admitted last got no answer from the server: it no longer
    /// counts toward the limits, and the account's next refresh waits
    /// ``AuthenticationPolicy/unansweredRefreshPause`` seconds, doubled after each further silence up to
    /// ``AuthenticationPolicy/unansweredRefreshPauseLimit``; a silence more than that limit after the last
    /// pause ended starts again from the first.
    public func unanswered(account: String, at instant: Date, policy: AuthenticationPolicy) {
        withState { state in
            if let admitted = state.perAccount[account]?.popLast(), let index = state.all.lastIndex(of: admitted) {
                state.all.remove(at: index)
            }
            let limit = policy.unansweredRefreshPauseLimit
            // Doubled after a silence during or soon after the last pause; a silence long after it (the
            // server answered another process meanwhile, or a new outage) starts again from the first.
            let seconds = state.paused[account].flatMap { instant.timeIntervalSince($0.until) <= limit ? $0 : nil }
                .map { min($0.seconds * 2, limit) } ?? min(policy.unansweredRefreshPause, limit)
            if state.paused.count >= state.pruneAt {
                state.paused = state.paused.filter { instant.timeIntervalSince($0.value.until) <= limit }
                state.pruneAt = max(1024, 2 * state.paused.count)
            }
            guard seconds > 0 else { return }
            state.paused[account] = Pause(until: instant.addingTimeInterval(seconds), seconds: seconds)
        }
    }

    /// Records that the server answered a refresh of `account`: its pause, if any, is over.
    public func answered(account: String) {
        withState { _ = $0.paused.removeValue(forKey: account) }
    }
}
