import CommandLineKit

/// The `hardtack` executable's root command: the list of commands, the top-level help and the version.
/// With no command it runs the demo.
struct Hardtack: Command {
    /// The version `hardtack --version` prints.
    static let version = "0.1.0"

    /// The program: this command tree, with usage errors exiting ``ExitStatus/usage``.
    static let program = CommandLineProgram(Hardtack.self, usageStatus: ExitStatus.usage.rawValue)

    static let configuration = CommandConfiguration(
        name: "hardtack",
        abstract: "Keeps a signed-in user's access and refresh tokens safe, in an encrypted store with Keychain "
            + "Services semantics, and drives sign-in, auto-login, refresh and sign-out.",
        usage: "[COMMAND [OPTIONS]]     (no command runs the demo)",
        environment: [
            (ServerOptions.serverVariable, "The server for signin, me, refresh, signout."),
            ("HARDTACK_STORE", "The store (a file, or a postgresql:// URI) when no --store is given."),
            ("HARDTACK_PASSPHRASE", "The store's passphrase when no key option is given."),
            ("PGPASSWORD", "A PostgreSQL store's password when its URI has none (else PGPASSFILE, else ~/.pgpass)."),
            ("PGSSLMODE", "The TLS check when the URI names none (default: verify-full for a host that is not loopback)."),
        ],
        subcommands: [
            KeychainCommand.self, DemoCommand.self, SignInCommand.self, StatusCommand.self, MeCommand.self,
            RefreshCommand.self, SignOutCommand.self, AccountsCommand.self, MigrateLegacyCommand.self, ServeCommand.self,
            GatewayCommand.self, CompletionCommand.self,
            HelpCommand.self,
        ],
        defaultSubcommand: DemoCommand.self, version: version)

    /// `--verbose`, given before the command.
    @OptionGroup var verbosity: Verbosity
}
