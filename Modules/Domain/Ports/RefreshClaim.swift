public import Foundation

/// The answer to a claim on a refresh.
public enum RefreshClaim: Sendable {
    /// This caller may present the refresh token.
    case claimed
    /// This caller may present the refresh token, taking over the claim of another that had marked its
    /// request sent and then ended or ran out of lease: the token may already be spent, and a rejection
    /// of it means that refresh was interrupted.
    case takenOver
    /// The stored session is no longer the stale one: someone refreshed already. Here is the current
    /// session.
    case superseded(Session)
    /// Another process holds a live claim until the given time; wait for its result.
    case heldByAnother(until: Date)
    /// No session is stored any more.
    case signedOut
}
