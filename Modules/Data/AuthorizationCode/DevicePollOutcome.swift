public import Domain

/// One poll of the token endpoint with a device code (RFC 8628 §3.5).
public enum DevicePollOutcome: Sendable {
    /// The user has not finished yet (`authorization_pending`).
    case pending
    /// Poll less often: 5 seconds more between polls (`slow_down`).
    case slowDown
    /// Approved: the session.
    case session(Session)
}
