/// What the embedded auth server has done since it started, for tests and the demo. Also served as
/// JSON by the development-only `GET /debug/stats`.
public struct AuthServerCounters: Sendable, Equatable, Codable {
    /// Successful sign-ins: password grants, header-style and identity-provider sign-ins.
    public var signIns: Int
    /// Successful refresh-token rotations, in either contract.
    public var refreshes: Int
    /// Refresh tokens presented again after use; each one revoked its whole family.
    public var reuseDetections: Int
    /// Token families revoked through `POST /oauth/revoke`.
    public var revocations: Int
    /// Requests to `GET /api/me`, answered or refused.
    public var meCalls: Int
    /// 401 responses sent, from any endpoint.
    public var unauthorized: Int

    /// Counters with the given values, all zero by default.
    public init(
        signIns: Int = 0, refreshes: Int = 0, reuseDetections: Int = 0, revocations: Int = 0, meCalls: Int = 0,
        unauthorized: Int = 0
    ) {
        self.signIns = signIns
        self.refreshes = refreshes
        self.reuseDetections = reuseDetections
        self.revocations = revocations
        self.meCalls = meCalls
        self.unauthorized = unauthorized
    }
}
