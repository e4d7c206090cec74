/// One part of the bench: a name to select it by, a title, and its body, which runs in a process of
/// its own so that a crash fails that scenario and not the whole bench.
struct Scenario: Sendable {
    /// Its number in the list.
    let number: Int
    /// The name `--only` takes.
    let name: String
    /// One line saying what it proves.
    let title: String
    /// The body; it reports through the context.
    let run: @Sendable (ScenarioContext) -> Void
}
