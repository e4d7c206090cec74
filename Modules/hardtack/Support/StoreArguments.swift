import CommandLineKit
import Composition
import Data
import Foundation
import StoreCore

/// The options every command that opens the store accepts: which store, what unlocks it, which access
/// groups. Decoded once; the store is only resolved (and never created) when a command asks.
struct StoreArguments: ParsableArguments {
    /// How the key is chosen: the paragraph after these options in help.
    static let sectionFooter: String? =
        "The key: --passphrase-file, else --key-env, else --key-credential, else --key-file, else "
        + "$HARDTACK_PASSPHRASE, else the key file <store>.key (created with the store)."

    /// `--store PATH|URI`, if given.
    @Option(
        "--store", value: "PATH|URI",
        help: "The store: a file (default: $HARDTACK_STORE, else $XDG_DATA_HOME/hardtack/keychain.db, else "
            + "~/.local/share/hardtack/keychain.db), or a postgresql:// URI, which needs a key option. "
            + "Commands that write create it on first use; commands that only read never do. A password in the "
            + "URI is visible to other users of this machine (ps, /proc); leave it out and keep it in ~/.pgpass, "
            + "PGPASSFILE or PGPASSWORD, or use --store-file.",
        allowsEmpty: false)
    var storePath: String?
    /// `--store-file FILE`, if given.
    @Option(
        "--store-file", value: "FILE",
        help: "Read the store (a path or a postgresql:// URI, its password included) from the first line of FILE, "
            + "which group and others may neither read nor write (mode 0600), instead of --store.",
        allowsEmpty: false)
    var storeFile: String?
    /// `--key-file PATH`, if given.
    @Option(
        "--key-file", value: "PATH",
        help: "A file of 32 random bytes that unlocks the store (default: the store path + .key).", allowsEmpty: false)
    var keyFile: String?
    /// `--passphrase-file PATH`, if given.
    @Option(
        "--passphrase-file", value: "PATH", help: "A file (mode 0600) whose first line is the passphrase.",
        allowsEmpty: false)
    var passphraseFile: String?
    /// `--key-env VAR`, if given.
    @Option(
        "--key-env", value: "VAR", help: "An environment variable holding the key as 64 hex digits or base64.",
        allowsEmpty: false)
    var keyVariable: String?
    /// `--key-credential NAME`, if given.
    @Option(
        "--key-credential", value: "NAME", help: "A systemd credential holding the key (from $CREDENTIALS_DIRECTORY).",
        allowsEmpty: false)
    var credentialName: String?
    /// `--rollback-anchor FILE`, if given.
    @Option(
        "--rollback-anchor", value: "FILE",
        help: "Keep the store's rollback anchor in FILE (default: $\(StoreArguments.anchorVariable); none): the newest "
            + "write, kept outside the store, so that an older copy of the whole store put back is damage (exit 65). "
            + "Put it where the store's file is not. Made with a new store, or by `verify --new-rollback-anchor`; "
            + "SQLite stores of format 4 only.",
        allowsEmpty: false)
    var rollbackAnchor: String?
    /// `--access-group GROUP`, in order.
    @Option(
        "--access-group", value: "GROUP",
        help: "Work in this access group; repeat for more; new items go to the first (default: default).",
        allowsEmpty: false)
    var accessGroups: [String]
    /// `--verbose`, listed with these options (every command that opens the store accepts it).
    @OptionGroup var verbosity: Verbosity

    /// The variable that names the rollback anchor when `--rollback-anchor` does not.
    static let anchorVariable = "HARDTACK_ROLLBACK_ANCHOR"

    /// Whether any of the key options is given.
    var namesAKey: Bool { passphraseFile != nil || keyVariable != nil || credentialName != nil || keyFile != nil }

    /// `environment` less the variable `--key-env` names, for programs this one starts (the browser):
    /// `HARDTACK_*` variables are withheld from them anyway, but `--key-env` may name any variable.
    func withoutKeyVariable(_ environment: [String: String]) -> [String: String] {
        guard let keyVariable else { return environment }
        return environment.filter { $0.key != keyVariable }
    }

    /// The key a command line names, by precedence: the passphrase file (read now), else the key variable,
    /// else the credential, else the key file; `nil` when none is named.
    /// - Throws: ``SecureStoreError/invalidKeyMaterial(_:)`` when the passphrase file cannot be read or its
    ///   first line is empty, ``SecureStoreError/insecurePermissions(path:fix:)`` when others may read it.
    static func key(
        passphraseFile: String?, keyVariable: String?, credentialName: String?, keyFile: String?
    ) throws(SecureStoreError) -> KeySource? {
        if let passphraseFile { return .passphrase(try PassphraseFile.readFirstLine(passphraseFile)) }
        if let keyVariable { return .environment(variable: keyVariable) }
        if let credentialName { return .systemdCredential(name: credentialName) }
        if let keyFile { return .keyFile(path: keyFile) }
        return nil
    }

    /// The store the command line names: `--store` (warning once when its URI holds a password), or the
    /// first line of the `--store-file`; `nil` when neither is given.
    /// - Throws: ``CommandFailure/usage(_:)`` when both are given or the file cannot be read,
    ///   ``CommandFailure/store(_:)`` when others may read or change the file.
    func namedStore(_ context: CommandContext) throws(CommandFailure) -> String? {
        guard let storeFile else {
            if let storePath { InlinePasswordWarning.check(storePath, option: "--store") }
            return storePath
        }
        guard storePath == nil else { throw context.usage("--store and --store-file both name the store; give one") }
        return try StoreFile.readFirstLine(storeFile)
    }

    /// The store configuration these options and the environment describe.
    /// With `onlyReads`, a store on read-only media is opened read-only rather than refused.
    /// - Throws: ``CommandFailure/usage(_:)`` for an unknown `HARDTACK_ARGON2_COST`;
    ///   ``CommandFailure/store(_:)`` when a passphrase file cannot be read.
    func configuration(_ context: CommandContext, onlyReads: Bool = false) throws(CommandFailure) -> StoreConfiguration {
        guard let cost = StoreConfiguration.passphraseCost(environment: context.environment) else {
            throw context.usage(
                "\(StoreConfiguration.passphraseCostVariable) may only be 'interactive' (for tests) or unset")
        }
        let storePath = try namedStore(context)
        let named = storePath ?? context.environment[StoreConfiguration.storeVariable]
        if let named, StoreConfiguration.isPostgreSQL(named), !namesAKey,
            context.environment[StoreConfiguration.passphraseVariable] == nil
        {
            throw context.usage(
                "a PostgreSQL store needs its key named: --key-file, --key-env, --key-credential or --passphrase-file "
                    + "(or \(StoreConfiguration.passphraseVariable))")
        }
        do throws(SecureStoreError) {
            var options = StoreOptions(passphraseCost: cost)
            options.onLongWait = { WaitMessage.printer(server: nil)(.storeLock) }
            options.onlyReads = onlyReads
            let anchor = rollbackAnchor ?? context.environment[Self.anchorVariable].flatMap { $0.isEmpty ? nil : $0 }
            // Absolute, so that commands run from other directories name the same anchor.
            options.rollbackAnchor = anchor.map {
                RollbackAnchorSetting(
                    path: $0.hasPrefix("/") ? $0 : FileManager.default.currentDirectoryPath + "/" + $0)
            }
            let key = try Self.key(
                passphraseFile: passphraseFile, keyVariable: keyVariable, credentialName: credentialName, keyFile: keyFile)
            return try StoreConfiguration.resolve(
                storePath: storePath, key: key, accessGroups: accessGroups, options: options,
                environment: context.environment)
        } catch {
            throw .store(error)
        }
    }
}
