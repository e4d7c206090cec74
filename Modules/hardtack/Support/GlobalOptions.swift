import Composition
import Data

/// The options every keychain verb accepts: which store, what unlocks it, which access groups.
enum GlobalOptions {
    /// `--store PATH`.
    static let store = OptionSpec.value(
        "--store", "PATH",
        "The store file (default: $XDG_DATA_HOME/hardtack/keychain.db, else ~/.local/share/hardtack/keychain.db). "
            + "Created on first use.")
    /// `--key-file PATH`.
    static let keyFile = OptionSpec.value(
        "--key-file", "PATH", "A file of 32 random bytes that unlocks the store (default: the store path + .key).")
    /// `--passphrase-file PATH`.
    static let passphraseFile = OptionSpec.value(
        "--passphrase-file", "PATH", "A file (mode 0600) whose first line is the passphrase.")
    /// `--key-env VAR`.
    static let keyVariable = OptionSpec.value(
        "--key-env", "VAR", "An environment variable holding the key as 64 hex digits or base64.")
    /// `--key-credential NAME`.
    static let credential = OptionSpec.value(
        "--key-credential", "NAME", "A systemd credential holding the key (from $CREDENTIALS_DIRECTORY).")
    /// `--access-group GROUP`.
    static let accessGroup = OptionSpec.value(
        "--access-group", "GROUP", "Work in this access group; repeat for more; new items go to the first "
            + "(default: default).", repeatable: true)

    /// All of them, in help order.
    static let all: [OptionSpec] = [store, keyFile, passphraseFile, keyVariable, credential, accessGroup]

    /// How the key is chosen, for help.
    static let keyPrecedence =
        "The key: --passphrase-file, else --key-env, else --key-credential, else --key-file, else "
        + "$HARDTACK_PASSPHRASE, else the key file <store>.key (created with the store)."

    /// The store configuration these options and the environment describe.
    /// - Throws: ``CommandFailure/usage(_:)`` for an empty option value or an unknown
    ///   `HARDTACK_ARGON2_COST`; ``CommandFailure/store(_:)`` when a passphrase file cannot be read.
    static func configuration(_ parsed: ParsedOptions, environment: [String: String], parser: OptionParser)
        throws(CommandFailure) -> StoreConfiguration
    {
        for spec in all where parsed.values(spec.name).contains("") {
            throw parser.usage("\(spec.name) needs a non-empty value")
        }
        guard let cost = PassphraseCost.from(environment: environment) else {
            throw parser.usage("\(PassphraseCost.environmentVariable) may only be 'interactive' (for tests) or unset")
        }
        let request = KeyRequest(
            passphraseFile: parsed.value(passphraseFile.name), keyVariable: parsed.value(keyVariable.name),
            credentialName: parsed.value(credential.name), keyFile: parsed.value(keyFile.name))
        do throws(SecureStoreError) {
            return try StoreConfiguration.resolve(
                storePath: parsed.value(store.name), key: request, accessGroups: parsed.values(accessGroup.name),
                passphraseCost: cost, environment: environment)
        } catch {
            throw .store(error)
        }
    }
}
