/// The `hardtack` executable's top level: the list of commands, their help, and dispatch.
enum Hardtack {
    /// Every command, in help order.
    static let commands: [HardtackCommand] = [
        HardtackCommand(name: KeychainCommand.name, summary: KeychainCommand.summary, run: KeychainCommand.run)
    ]

    /// `hardtack --help`.
    static var help: String {
        """
        hardtack: a Keychain-style encrypted secret store for Linux.

        usage: hardtack COMMAND [OPTIONS]

        \(HelpText.section("Commands", commands.map { ($0.name, $0.summary) }))

        Run `hardtack COMMAND --help` for a command's options.
        """
    }

    /// Runs the command line (without the program name) and returns the exit status.
    static func run(_ arguments: [String], environment: [String: String]) -> ExitStatus {
        guard let first = arguments.first, !["--help", "-h", "help"].contains(first) else {
            Console.print(help)
            return .success
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            let shown = isWord(first) ? "'\(first)'" : "(not shown)"
            Console.error("unknown command \(shown). See `hardtack --help`.")
            return .usage
        }
        return command.run(arguments.dropFirst(), environment)
    }

    /// Whether `text` looks like a command name, so echoing it cannot reveal a mistyped secret's shape.
    static func isWord(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 40 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    }
}
