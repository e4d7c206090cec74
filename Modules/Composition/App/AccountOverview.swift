public import Domain
public import Foundation

/// What can be told of one account's session without a network: who, how they signed in, the launch
/// decision and when the access token expires. Never a token.
public struct AccountOverview: Sendable {
    /// The account.
    public let account: AccountName
    /// The signed-in user, when the server named one.
    public let user: User?
    /// How the session was signed in, when its record could be read.
    public let method: SignInMethod?
    /// What an app would decide at launch for this account.
    public let decision: LaunchDecision
    /// When the access token expires, when known.
    public let accessTokenExpiresAt: Date?
}
