/// The `hardtack` executable's top level: the list of commands, their help, and dispatch.
enum Hardtack {
    /// Every command, in help order.
    static let commands: [HardtackCommand] = [
        HardtackCommand(name: KeychainCommand.name, summary: KeychainCommand.summary, run: KeychainCommand.run)
    ] + appCommands.map { command in
        HardtackCommand(name: command.name, summary: command.summary) { arguments, environment in
            await command.main(arguments, environment: environment)
        }
    }

    /// The commands that drive the app's use cases.
    static let appCommands: [AppCommand] = [
        DemoCommand.command, SignInCommand.command, StatusCommand.command, MeCommand.command, RefreshCommand.command,
        SignOutCommand.command, MigrateLegacyCommand.command, ServeCommand.command,
    ]

    /// `hardtack --help`.
    static var help: String {
        """
        hardtack: keeps a signed-in user's access and refresh tokens safe, in an encrypted store with
        Keychain Services semantics, and drives sign-in, auto-login, refresh and sign-out.

        usage: hardtack [COMMAND [OPTIONS]]     (no command runs the demo)

        \(HelpText.section("Commands", commands.map { ($0.name, $0.summary) }))

        Environment: HARDTACK_SERVER (the server for signin, me, refresh, signout), HARDTACK_PASSPHRASE (the
        store's passphrase when no key option is given).

        Run `hardtack COMMAND --help` for a command's options.
        """
    }

    /// Runs the command line (without the program name) and returns the exit status.
    static func run(_ arguments: [String], environment: [String: String]) async -> ExitStatus {
        guard let first = arguments.first else {
            return await DemoCommand.command.main([], environment: environment)
        }
        guard !["--help", "-h", "help"].contains(first) else {
            Console.print(help)
            return .success
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            let shown = isWord(first) ? "'\(first)'" : "(not shown)"
            Console.error("unknown command \(shown). See `hardtack --help`.")
            return .usage
        }
        return await command.run(arguments.dropFirst(), environment)
    }

    /// Whether `text` looks like a command name, so echoing it cannot reveal a mistyped secret's shape.
    static func isWord(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 40 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    }
}
