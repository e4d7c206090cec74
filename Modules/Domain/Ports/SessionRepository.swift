public import Foundation

/// The port to where the session is kept (Data's `SecureStoreSessionRepository` keeps it in the
/// secure item store). Every write is atomic: both tokens change together or not at all.
///
/// The refresh methods coordinate processes that share one store, so that only one of them presents
/// a given refresh token: a process first claims the refresh (a compare-and-swap on the stored
/// session generation, with a lease), and the others wait for its result instead of presenting the
/// same, soon superseded, token.
public protocol SessionRepository: Sendable {
    /// The stored session, or `nil` when there is none.
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` when the store is locked or damaged.
    func load() throws(AuthenticationError) -> Session?

    /// Stores `session`, replacing any earlier one, in one transaction.
    func replace(with session: Session) throws(AuthenticationError)

    /// Deletes the stored session; `false` when there was none.
    @discardableResult
    func delete() throws(AuthenticationError) -> Bool

    /// Claims the right to refresh `stale`, if it is still the stored generation (see
    /// ``Session/isSameGeneration(as:)``) and nobody else holds a live claim.
    func claimRefresh(replacing stale: Session, owner: String, until: Date, now: Date)
        throws(AuthenticationError) -> RefreshClaim

    /// Stores `refreshed` if the stored session is still the generation of `stale`, and drops the
    /// claim; `false` (nothing written) when the session changed meanwhile.
    func completeRefresh(replacing stale: Session, with refreshed: Session, owner: String)
        throws(AuthenticationError) -> Bool

    /// Drops `owner`'s claim without changing the session (after a failed refresh).
    func releaseRefresh(owner: String) throws(AuthenticationError)

    /// Deletes the session if its refresh token is still `refreshToken` (after the server rejected it).
    @discardableResult
    func deleteIfCurrent(_ refreshToken: RefreshToken) throws(AuthenticationError) -> Bool
}
