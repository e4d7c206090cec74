/// How hard the bench pushes: `quick` for every CI run (a few minutes), `long` for a release.
enum BenchMode: String, Sendable {
    /// The CI mode: every scenario, smaller counts.
    case quick
    /// The release mode: the counts docs/testing.md quotes.
    case long

    /// `quick` or `long` value, picked by mode.
    func pick<Value>(_ quick: Value, _ long: Value) -> Value {
        self == .quick ? quick : long
    }
}
