public import Foundation

/// The answer to a claim on a refresh.
public enum RefreshClaim: Sendable {
    /// This caller may present the refresh token.
    case claimed
    /// The stored refresh token is no longer the one presented: someone refreshed already. Here is
    /// the current session.
    case superseded(Session)
    /// Another process holds a live claim until the given time; wait for its result.
    case heldByAnother(until: Date)
    /// No session is stored any more.
    case signedOut
}
