/// Every scenario, in the order.
enum ScenarioCatalog {
    /// All scenarios.
    static let all: [Scenario] = [
        ByteFlipScenario.scenario, SwapScenario.scenario, KeyScenario.scenario,
        CrashLoopScenario.scenario, ContentionScenario.scenario, RemnantScenario.scenario,
        PermissionScenario.scenario, RefreshFailureScenario.scenario, HostileInputScenario.scenario,
        SanitizerScenario.scenario,
        // On PostgreSQL, each on a throwaway server of its own.
        PGCrashScenario.scenario, PGContentionScenario.scenario, PGTamperScenario.scenario,
        PGRemnantScenario.scenario, PGCutScenario.scenario, PGRefreshScenario.scenario, GatewayScenario.scenario,
    ]

    /// The scenario with this name or number.
    static func find(_ name: String) -> Scenario? {
        all.first { $0.name == name || "\($0.number)" == name }
    }
}
