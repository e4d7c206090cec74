import Composition
import Data

/// `change-passphrase`: protect the store with a new passphrase, or switch it to a key file.
enum ChangePassphraseVerb {
    /// The variable that holds the new passphrase when no file is given.
    static let newPassphraseVariable = "HARDTACK_NEW_PASSPHRASE"

    /// The verb.
    static let verb: KeychainVerb = {
        let newPassphraseFile = OptionSpec.value(
            "--new-passphrase-file", "PATH", "A file (mode 0600) whose first line is the new passphrase.")
        let newKeyFile = OptionSpec.value(
            "--new-key-file", "PATH", "Switch to this key file instead (created with 32 random bytes if missing).")
        return KeychainVerb(
            name: "change-passphrase", summary: "Protect the store with a new passphrase, or switch to a key file.",
            synopsis: "[\(newPassphraseFile.synopsis) | \(newKeyFile.synopsis)]",
            options: [newPassphraseFile, newKeyFile],
            notes: [
                "The current key comes from the global options as usual. The new passphrase comes from "
                    + "--new-passphrase-file, else $\(newPassphraseVariable).",
                "Only the wrapped master key is rewritten, in one transaction; afterwards the old passphrase or key no "
                    + "longer opens the store (older copies of the file still open with it).",
            ],
            run: { context throws(CommandFailure) in
                let options = context.options
                for spec in [newPassphraseFile, newKeyFile] where options.value(spec.name) == "" {
                    throw context.usage("\(spec.name) needs a non-empty value")
                }
                let wantsPassphrase =
                    options.has(newPassphraseFile.name) || context.environment[newPassphraseVariable] != nil
                if options.has(newKeyFile.name) && wantsPassphrase {
                    throw context.usage(
                        "give either a new passphrase (--new-passphrase-file or $\(newPassphraseVariable)) or "
                            + "--new-key-file, not both")
                }
                let request = KeyRequest(
                    passphraseFile: options.value(newPassphraseFile.name), keyFile: options.value(newKeyFile.name))
                let configuration = try context.configuration()
                let resolved: KeyChoice?
                do throws(SecureStoreError) {
                    resolved = try request.resolve(
                        environment: context.environment, passphraseVariable: newPassphraseVariable)
                } catch {
                    throw .store(error)
                }
                guard let newKey = resolved else {
                    throw context.usage(
                        "give the new passphrase with --new-passphrase-file PATH or $\(newPassphraseVariable), or a "
                            + "key file with --new-key-file PATH")
                }
                guard configuration.storeExists else {
                    throw .finding(.notFound, "there is no store at \(configuration.storePath) yet; add an item first")
                }
                let handle = try context.open(configuration)
                do throws(SecureStoreError) {
                    try handle.changeKey(to: newKey)
                } catch {
                    throw .store(error)
                }
                Console.print("The store is now protected by \(newKey.summary).")
                if case .keyFile(let oldPath) = configuration.key {
                    if case .keyFile(let newPath) = newKey, newPath == oldPath { return }
                    Console.print(
                        "The key file \(oldPath) no longer opens it; delete that file once no backup of the store "
                            + "needs it.")
                }
            })
    }()
}
