import CommandLineKit
import Composition
import Data

/// The options every command that opens the store accepts: which store, what unlocks it, which access
/// groups. Decoded once; the store is only resolved (and never created) when a command asks.
struct StoreOptions: StaticOptionGroup {
    /// `--store PATH`.
    static let store = Option<String>(
        "--store", value: "PATH|URI",
        help: "The store: a file (default: $HARDTACK_STORE, else $XDG_DATA_HOME/hardtack/keychain.db, else "
            + "~/.local/share/hardtack/keychain.db), or a postgresql:// URI, which needs a key option. "
            + "Commands that write create it on first use; commands that only read never do.",
        allowsEmpty: false)
    /// `--key-file PATH`.
    static let keyFile = Option<String>(
        "--key-file", value: "PATH", help: "A file of 32 random bytes that unlocks the store (default: the store path + .key).",
        allowsEmpty: false)
    /// `--passphrase-file PATH`.
    static let passphraseFile = Option<String>(
        "--passphrase-file", value: "PATH", help: "A file (mode 0600) whose first line is the passphrase.",
        allowsEmpty: false)
    /// `--key-env VAR`.
    static let keyVariable = Option<String>(
        "--key-env", value: "VAR", help: "An environment variable holding the key as 64 hex digits or base64.",
        allowsEmpty: false)
    /// `--key-credential NAME`.
    static let credential = Option<String>(
        "--key-credential", value: "NAME", help: "A systemd credential holding the key (from $CREDENTIALS_DIRECTORY).",
        allowsEmpty: false)
    /// `--access-group GROUP`.
    static let accessGroup = Option<String>(
        "--access-group", value: "GROUP",
        help: "Work in this access group; repeat for more; new items go to the first (default: default).",
        isRepeatable: true, allowsEmpty: false)

    /// `--verbose`: on every command (before or after its name), read once for every failure.
    static let verbose = Flag(
        "--verbose", help: "When the store fails, add the backend's own words (result code, statement, errno).")

    static let declarations: [any ArgumentDeclaring] = [
        store, keyFile, passphraseFile, keyVariable, credential, accessGroup, verbose,
    ]

    /// How the key is chosen, for help.
    static let keyPrecedence =
        "The key: --passphrase-file, else --key-env, else --key-credential, else --key-file, else "
        + "$HARDTACK_PASSPHRASE, else the key file <store>.key (created with the store)."

    /// The options under `title`, followed by how the key is chosen.
    static func section(_ title: String) -> ArgumentSection {
        ArgumentSection(title, declarations, footer: keyPrecedence)
    }

    /// `--store`, if given.
    let storePath: String?
    /// What unlocks the store, as given.
    let key: KeyRequest
    /// `--access-group`, in order.
    let accessGroups: [String]

    init(from values: ParsedValues) throws(UsageError) {
        storePath = try values.value(Self.store)
        key = KeyRequest(
            passphraseFile: try values.value(Self.passphraseFile), keyVariable: try values.value(Self.keyVariable),
            credentialName: try values.value(Self.credential), keyFile: try values.value(Self.keyFile))
        accessGroups = try values.values(Self.accessGroup)
    }

    /// The store configuration these options and the environment describe.
    /// With `onlyReads`, a store on read-only media is opened read-only rather than refused.
    /// - Throws: ``CommandFailure/usage(_:)`` for an unknown `HARDTACK_ARGON2_COST`;
    ///   ``CommandFailure/store(_:)`` when a passphrase file cannot be read.
    func configuration(_ context: CommandContext, onlyReads: Bool = false) throws(CommandFailure) -> StoreConfiguration {
        guard let cost = PassphraseCost.from(environment: context.environment) else {
            throw context.usage("\(PassphraseCost.environmentVariable) may only be 'interactive' (for tests) or unset")
        }
        let named = storePath ?? context.environment[StoreConfiguration.storeVariable]
        if let named, StoreConfiguration.isPostgreSQL(named), key == KeyRequest(),
            context.environment[StoreConfiguration.passphraseVariable] == nil
        {
            throw context.usage(
                "a PostgreSQL store needs its key named: --key-file, --key-env, --key-credential or --passphrase-file "
                    + "(or \(StoreConfiguration.passphraseVariable))")
        }
        do throws(SecureStoreError) {
            var configuration = try StoreConfiguration.resolve(
                storePath: storePath, key: key, accessGroups: accessGroups, passphraseCost: cost,
                environment: context.environment)
            configuration.onLongWait = { WaitMessage.printer(server: nil)(.storeLock) }
            configuration.onlyReads = onlyReads
            return configuration
        } catch {
            throw .store(error)
        }
    }
}
