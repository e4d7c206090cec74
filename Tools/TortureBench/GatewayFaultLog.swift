/// What the gateway scenario did, when (seconds on the load's clock), so that each failed call and each
/// ended session can be held against a fault that explains it.
struct GatewayFaultLog {
    /// An instance killed with SIGKILL.
    struct Kill {
        /// When.
        let at: Double
        /// Which instance.
        let instance: Int
        /// Whether the fault proxy killed it as it sent a refresh (aimed), or the scenario at random.
        let aimed: Bool
        /// Whether it had a refresh under way, or one answered less than a second before: then the issuer
        /// may have rotated a refresh token whose successor it never stored, and that session may end.
        let struckRefresh: Bool
    }

    /// A planned outage: calls may fail with 502, 503 or 504 within it.
    struct Outage {
        /// What was down.
        let what: String
        /// From when to when (its end includes the grace the instances need to notice it is over).
        let from: Double
        let to: Double
        /// Whether a refresh was under way as it began (PostgreSQL stopped: its tokens may not be stored).
        let struckRefresh: Bool
    }

    /// The kills, in order.
    var kills: [Kill] = []
    /// The planned outages, in order.
    var outages: [Outage] = []

    /// How many session ends the faults explain: one per kill or outage that struck a refresh.
    var explainedEnds: Int {
        kills.filter(\.struckRefresh).count + outages.filter(\.struckRefresh).count
    }

    /// The outage a call that ended at `moment` falls in, if any.
    func outage(at moment: Double) -> Outage? {
        outages.first { $0.from <= moment && moment <= $0.to }
    }
}
