import CommandLineKit

/// `hardtack keychain`: the `security`-shaped verbs over the encrypted store. Its global options are
/// accepted before or after the verb.
struct KeychainCommand: Command {
    static let configuration = CommandConfiguration(
        name: "keychain", abstract: "Add, find and delete passwords in the encrypted store; dump, verify, salvage, change or rotate its key.",
        usage: "[GLOBAL OPTIONS] VERB [OPTIONS]",
        discussion: ["Keeps passwords in one encrypted file, with verbs shaped like macOS `security`."],
        environment: [
            ("HARDTACK_STORE", "The store (a file, or a postgresql:// URI) when no --store is given."),
            ("HARDTACK_PASSPHRASE", "The passphrase, when no --passphrase-file is given."),
            ("PGPASSWORD", "A PostgreSQL store's password when its URI has none (else PGPASSFILE, else ~/.pgpass)."),
            ("PGSSLMODE", "The TLS check when the URI names none (default: verify-full for a host that is not loopback)."),
            (ChangePassphraseVerb.newPassphraseVariable, "The new passphrase for change-passphrase and rotate-key."),
            ("HARDTACK_ARGON2_COST", "`interactive` lowers the cost of a new passphrase. For tests only."),
        ],
        subcommands: [
            AddPasswordVerb<GenericPasswords>.self, FindPasswordVerb<GenericPasswords>.self,
            DeletePasswordVerb<GenericPasswords>.self, AddPasswordVerb<InternetPasswords>.self,
            FindPasswordVerb<InternetPasswords>.self, DeletePasswordVerb<InternetPasswords>.self, DumpVerb.self,
            VerifyVerb.self, SalvageVerb.self, ChangePassphraseVerb.self, RotateKeyVerb.self, ExportVerb.self, ImportVerb.self,
        ],
        subcommandNoun: "keychain verb", subcommandPlaceholder: "VERB", subcommandsTitle: "Verbs",
        exitStatuses: ExitStatus.keychainTable)

    /// The global options, accepted here, before the verb, as well as after it.
    @OptionGroup(title: "Global options (before or after the verb)") var store: StoreArguments
}
