public import Domain
public import Foundation

/// One account's stored session as a listing reads it: the session (or why it cannot be read) and when it
/// was signed in (its record's creation date, which a refresh keeps).
public struct StoredSession: Sendable {
    /// The account the session is kept under.
    public let account: AccountName
    /// The session, `nil` when its items make none, or the error reading it alone would give.
    public let session: Result<Session?, AuthenticationError>
    /// When the session was signed in, when the store says.
    public let signedInAt: Date?
}
