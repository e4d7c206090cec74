import Testing

/// The gateway's end-to-end suites share the one Authlib provider and change its settings for the gateway's
/// client (token lifetimes, a failing token endpoint): they run one test at a time.
@Suite(.serialized, .timeLimit(.minutes(3))) enum GatewayScenarios {}
