/// What the gateway scenario did, when (seconds on the load's clock), so that each failed call, each
/// detour and each ended session can be held against the fault that explains it.
struct GatewayFaultLog {
    /// An instance killed with SIGKILL, and started again.
    struct Kill {
        /// When it was killed.
        let at: Double
        /// When it listened again.
        let restarted: Double
        /// Which instance.
        let instance: Int
        /// Whether the fault proxy killed it as it sent a refresh (aimed), or the scenario at random.
        let aimed: Bool
        /// How many refreshes it had under way, or answered less than a second before (see
        /// ``FaultProxy/refreshesStruck(by:at:margin:)``): for each, the issuer may have rotated a refresh
        /// token whose successor it never stored, and that session may end.
        let struck: Int
        /// How long before the kill its last refresh was answered, if it had one.
        var sinceRefresh: Double?
    }

    /// A planned outage: calls that end within it may fail with 502, 503 or 504 and one of its codes.
    struct Outage {
        /// What was down.
        let what: String
        /// When it began.
        let from: Double
        /// When it ended, plus the grace the instances need to notice (their pauses, reconnecting).
        let to: Double
        /// The gateway's error codes it explains (`issuer_unavailable`, `store_unavailable`).
        let codes: Set<String>
    }

    /// The kills, in order.
    var kills: [Kill] = []
    /// The planned outages, in order.
    var outages: [Outage] = []

    /// The outage that explains a call failed at `moment` with `status` and `code`, if any.
    func outage(explaining status: Int, code: String, at moment: Double) -> Outage? {
        guard [502, 503, 504].contains(status) else { return nil }
        return outages.first { $0.from <= moment && moment <= $0.to && $0.codes.contains(code) }
    }

    /// Whether the instance on `port` (of `ports`) was down, killed and not yet listening again, at
    /// `moment` (give or take 0.2 s for the clocks of the kill and of the call).
    func wasDown(_ port: UInt16, of ports: [UInt16], at moment: Double) -> Bool {
        kills.contains { ports[$0.instance] == port && $0.at - 0.2 <= moment && moment <= $0.restarted + 0.2 }
    }
}
