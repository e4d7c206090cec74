/// What one sweep of a gateway's store removed.
public struct GatewaySweep: Sendable, Equatable {
    /// Sessions whose refresh token had expired.
    public var expired = 0
    /// Sessions unused for longer than the idle timeout.
    public var idle = 0
    /// Records of a session's last use left behind by a call that ended after its session did.
    public var orphanedRecords = 0
    /// Logout tokens old enough that a replay would be refused for its age anyway.
    public var logoutTokens = 0

    /// Whether the sweep removed as many as its batch allows (another sweep may find more).
    public var filledBatch = false
}
