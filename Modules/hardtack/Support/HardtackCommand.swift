/// One top-level command (`hardtack keychain …`): its name, its line in `hardtack --help`, and its
/// entry point. New commands slot into ``Hardtack/commands``.
struct HardtackCommand: Sendable {
    /// The command as typed.
    let name: String
    /// What it does, in one line.
    let summary: String
    /// Runs it with the arguments after its name and the process environment.
    let run: @Sendable (ArraySlice<String>, [String: String]) async -> ExitStatus
}
