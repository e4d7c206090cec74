public import Foundation

/// The port to where the session is kept (Data's `SecureStoreSessionRepository` keeps it in the
/// secure item store). Every write is atomic: both tokens change together or not at all.
///
/// The refresh methods coordinate processes that share one store, so that only one of them presents
/// a given refresh token: a process first claims the refresh (a compare-and-swap on the stored refresh
/// token, with a short lease), and the others wait for its result instead of presenting the same,
/// soon superseded, token.
public protocol SessionRepository: Sendable {
    /// The stored session, or `nil` when there is none.
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` when the store is locked or damaged.
    func load() throws(AuthenticationError) -> Session?

    /// Stores `session`, replacing any earlier one, in one transaction.
    func replace(with session: Session) throws(AuthenticationError)

    /// Deletes the stored session; `false` when there was none.
    @discardableResult
    func delete() throws(AuthenticationError) -> Bool

    /// Claims the right to present `refreshToken`, if it is still the stored one and nobody else
    /// holds a live claim.
    func claimRefresh(of refreshToken: RefreshToken, owner: String, until: Date, now: Date)
        throws(AuthenticationError) -> RefreshClaim

    /// Stores the refreshed session if the stored refresh token is still `refreshToken`, and drops the
    /// claim; `false` (nothing written) when the session changed meanwhile.
    func completeRefresh(of refreshToken: RefreshToken, with session: Session, owner: String)
        throws(AuthenticationError) -> Bool

    /// Drops `owner`'s claim without changing the session (after a failed refresh).
    func releaseRefresh(owner: String) throws(AuthenticationError)

    /// Deletes the session if its refresh token is still `refreshToken` (after the server rejected it).
    @discardableResult
    func deleteIfCurrent(_ refreshToken: RefreshToken) throws(AuthenticationError) -> Bool
}
