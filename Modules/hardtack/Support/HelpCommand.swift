import CommandLineKit

/// `hardtack help [COMMAND…]`: the help of a command (the top-level help for anything else), and
/// `hardtack help exit-codes`: the exit-status table in Markdown, as the README shows it. Not listed.
struct HelpCommand: HardtackCommand {
    static let configuration = CommandConfiguration(
        name: "help", abstract: "Show the help of a command, or the exit-status table (help exit-codes).",
        isHidden: true)

    /// The topic's words.
    @Argument("TOPIC", help: "A command (and verb), or exit-codes for the exit-status table.") var topic: [String]

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        if topic == ["exit-codes"] {
            Console.print(ExitStatus.table.markdown)
        } else {
            Console.print(Hardtack.program.help(for: topic))
        }
    }
}
