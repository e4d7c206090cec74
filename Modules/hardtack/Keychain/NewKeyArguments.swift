import CommandLineKit
import Data
import Domain
import StoreCore

/// The store's new key, for `change-passphrase` and `rotate-key`: a new passphrase file (else
/// `$HARDTACK_NEW_PASSPHRASE`) or a new key file, never both.
struct NewKeyArguments: ParsableArguments {
    /// The variable that holds the new passphrase when no file is given.
    static let passphraseVariable = "HARDTACK_NEW_PASSPHRASE"

    /// `--new-passphrase-file PATH`, if given.
    @Option(
        "--new-passphrase-file", value: "PATH", help: "A file (mode 0600) whose first line is the new passphrase.",
        allowsEmpty: false)
    var passphraseFile: String?
    /// `--new-key-file PATH`, if given.
    @Option(
        "--new-key-file", value: "PATH",
        help: "Wrap the master key under this key file instead (created with 32 random bytes if missing).",
        allowsEmpty: false)
    var keyFile: String?

    /// The choice as a usage line shows it: `[--new-passphrase-file PATH | --new-key-file PATH]`.
    static var usageChoice: String {
        let arguments = NewKeyArguments()
        return "[\(arguments.$passphraseFile.synopsis) | \(arguments.$keyFile.synopsis)]"
    }

    /// The new key these options (or `$HARDTACK_NEW_PASSPHRASE`) name, or `nil` when none does.
    /// - Throws: ``CommandFailure/usage(_:)`` for both a passphrase and a key file, ``CommandFailure/store(_:)``
    ///   when the passphrase file cannot be read.
    func key(_ context: CommandContext) throws(CommandFailure) -> KeySource? {
        let wantsPassphrase = passphraseFile != nil || context.environment[Self.passphraseVariable] != nil
        if keyFile != nil && wantsPassphrase {
            throw context.usage(
                "give either a new passphrase (--new-passphrase-file or $\(Self.passphraseVariable)) or "
                    + "--new-key-file, not both")
        }
        do throws(SecureStoreError) {
            return try StoreArguments.key(
                passphraseFile: passphraseFile, keyVariable: nil, credentialName: nil, keyFile: keyFile)
                ?? context.environment[Self.passphraseVariable].map { .passphrase(SecretBytes(utf8: $0)) }
        } catch {
            throw .store(error)
        }
    }
}
