public import Foundation

/// The port to where the session is kept (Data's `SecureStoreSessionRepository` keeps it in the
/// secure item store). Every write is atomic: both tokens change together or not at all. Every call is
/// `async`: an adapter that waits (for a lock, for a database server) does so on threads of its own,
/// never on the caller's, so the use cases can be awaited from any task.
///
/// The refresh methods coordinate processes that share one store, so that only one of them presents
/// a given refresh token: a process first claims the refresh (a compare-and-swap on the stored
/// session generation, with a lease), and the others wait for its result instead of presenting the
/// same, soon superseded, token. Nothing is held between these calls (no transaction, no lock), least
/// of all across the request to the token endpoint: each is one short transaction of its own.
///
/// A claim goes through two phases: claimed, then sent (``markRefreshSent(replacing:owner:)``, just
/// before the refresh token is presented). A claimant that ended before sending spent nothing, and its
/// claim is taken over at once; one that ended after sending may have spent the token, and its claim is
/// taken over too, once its end is known, or when its lease runs out (see docs/app-core.md).
public protocol SessionRepository: Sendable {
    /// The stored session, or `nil` when there is none.
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` when the store is locked or damaged.
    func load() async throws(AuthenticationError) -> Session?

    /// Stores `session`, replacing any earlier one, in one transaction.
    func replace(with session: Session) async throws(AuthenticationError)

    /// Deletes the stored session; `false` when there was none.
    @discardableResult
    func delete() async throws(AuthenticationError) -> Bool

    /// Claims the right to refresh `stale`, if it is still the stored generation (see
    /// ``Session/isSameGeneration(as:)``) and nobody else holds a live claim.
    /// - Parameters:
    ///   - lease: how long the claim holds others back, in seconds, by the clock that judges leases.
    ///   - now: the caller's clock, which judges leases unless the store keeps a clock that every
    ///     sharer of it reads (a database server's), so that machines whose clocks differ agree.
    func claimRefresh(replacing stale: Session, owner: String, lease: TimeInterval, now: Date)
        async throws(AuthenticationError) -> RefreshClaim

    /// Records, in a transaction of its own, that `owner` is about to present `stale`'s refresh token;
    /// `false` (nothing written) when `owner` no longer holds the claim on that generation (it was taken
    /// over, or the session changed), and then it must not send.
    func markRefreshSent(replacing stale: Session, owner: String) async throws(AuthenticationError) -> Bool

    /// Stores `refreshed` if the stored session is still the generation of `stale` and the claim on it
    /// is still `owner`'s, and drops the claim; `false` (nothing written) when the session changed or
    /// the claim was taken over meanwhile.
    func completeRefresh(replacing stale: Session, with refreshed: Session, owner: String)
        async throws(AuthenticationError) -> Bool

    /// Ends `owner`'s claim without changing the session (after a failed refresh): a claim not yet
    /// marked sent is dropped; one marked sent keeps its mark with its lease ended, so the next caller
    /// claims at once and, if the server rejects the token, knows the refresh was interrupted.
    func releaseRefresh(owner: String) async throws(AuthenticationError)

    /// Deletes the session if its refresh token is still `refreshToken` (after the server rejected it).
    @discardableResult
    func deleteIfCurrent(_ refreshToken: RefreshToken) async throws(AuthenticationError) -> Bool
}
