import CommandLineKit

/// `hardtack help [COMMAND…]`: the help of a command (the top-level help for anything else), and
/// `hardtack help exit-codes`: the exit-status table in Markdown, as the README shows it. Not listed.
struct HelpCommand: HardtackCommand {
    static let topic = Positional<String>(
        "TOPIC", help: "A command (and verb), or exit-codes for the exit-status table.", isRequired: false,
        isRepeatable: true)

    static let configuration = CommandConfiguration(
        name: "help", abstract: "Show the help of a command, or the exit-status table (help exit-codes).",
        isHidden: true)
    static let sections = [ArgumentSection("Arguments", [topic])]

    /// The topic's words.
    let topic: [String]

    init(from values: ParsedValues) throws(UsageError) {
        topic = try values.values(Self.topic)
    }

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        if topic == ["exit-codes"] {
            Console.print(ExitStatus.table.markdown)
        } else {
            Console.print(Hardtack.program.help(for: topic))
        }
    }
}
