/// What an embedded auth server has counted, for the demo and for tests.
public struct ServerCounters: Sendable, Equatable {
    /// Successful sign-ins.
    public let signIns: Int
    /// Successful refreshes.
    public let refreshes: Int
    /// Refresh tokens presented again after they were rotated (each revokes its family).
    public let reuseDetections: Int
    /// Revocations.
    public let revocations: Int
    /// `/api/me` calls.
    public let meCalls: Int
    /// Requests refused with 401.
    public let unauthorized: Int
}
