public import Foundation
import Synchronization

/// Counts the refreshes presented to servers by every ``RefreshSession`` that shares it, per account and
/// in all, and refuses one more once either count reaches its limit within the policy's window: a bug
/// that refreshes in a loop, for one account or for many at once, becomes an error instead of a flood.
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
    }

    private let state = Mutex(State())

    /// A guard with no refreshes counted yet.
    public init() {}

    /// Records a refresh of `account` at `instant`, or refuses it.
    /// - Throws: ``AuthenticationError/refreshStorm(refreshes:windowSeconds:)`` when `account` already
    ///   made ``AuthenticationPolicy/maxRefreshesPerWindow`` refreshes, or all accounts together
    ///   ``AuthenticationPolicy/maxRefreshesPerWindowAllAccounts``, within
    ///   ``AuthenticationPolicy/refreshWindow`` seconds before `instant`.
    public func admit(account: String, at instant: Date, policy: AuthenticationPolicy) throws(AuthenticationError) {
        let refused: Int? = state.withLock { state in
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
}
