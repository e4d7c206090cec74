/// What the app shows at launch, decided by ``ValidateAuthentication``.
public enum LaunchDecision: Sendable, Equatable {
    /// Signed in; the access token has this many seconds left (`nil`: unknown until a 401).
    case signedIn(user: User?, accessTokenSecondsLeft: Double?)
    /// Signed in, but the access token has expired: refresh before the first call.
    case signedInNeedsRefresh(user: User?)
    /// No usable session: show the sign-in flow.
    case signedOut
    /// The store is locked or damaged: whether a session exists is unknown. Do not sign the user out;
    /// ask them to unlock, or retry.
    case storeUnavailable(reason: String)
    /// The store is damaged: whether a session exists is unknown. Do not sign the user out; tell them
    /// the store is damaged and point at salvage (which copies its sound items into a new store).
    case storeDamaged(reason: String)

    /// Whether the app goes to its main flow (signed in, with or without a pending refresh).
    public var showsMainFlow: Bool {
        switch self {
        case .signedIn, .signedInNeedsRefresh: true
        case .signedOut, .storeUnavailable, .storeDamaged: false
        }
    }
}
