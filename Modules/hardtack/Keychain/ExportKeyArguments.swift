import CommandLineKit
import Data
import StoreCore

/// What protects an export file, for `export` and `import`: a passphrase file or a key file, exactly one.
struct ExportKeyArguments: ParsableArguments {
    /// `--export-passphrase-file PATH`, if given.
    @Option(
        "--export-passphrase-file", value: "PATH", help: "A file (mode 0600) whose first line protects the export.",
        allowsEmpty: false)
    var passphraseFile: String?
    /// `--export-key-file PATH`, if given.
    @Option(
        "--export-key-file", value: "PATH", help: "A file of 32 random bytes that protects the export instead.",
        allowsEmpty: false)
    var keyFile: String?

    /// The choice of one of the two, as a usage line shows it: `(--export-passphrase-file PATH | …)`.
    static var usageChoice: String {
        let arguments = ExportKeyArguments()
        return "(\(arguments.$passphraseFile.synopsis) | \(arguments.$keyFile.synopsis))"
    }

    /// The export's key these options name: the passphrase file's first line, or the key file.
    /// - Throws: ``SecureStoreError/invalidKeyMaterial(_:)`` when the passphrase file cannot be read or its
    ///   first line is empty, ``SecureStoreError/insecurePermissions(path:fix:)`` when others may read it.
    func key() throws(SecureStoreError) -> ExportKey {
        if let passphraseFile { return .passphrase(try PassphraseFile.readFirstLine(passphraseFile)) }
        if let keyFile { return .keyFile(path: keyFile) }
        throw .invalidKeyMaterial("an export needs its own passphrase file or key file")
    }

    func validate() throws(UsageError) {
        guard (passphraseFile == nil) != (keyFile == nil) else {
            throw UsageError(
                "give the export's key: \($passphraseFile.synopsis) or \($keyFile.synopsis) (one of them)")
        }
    }
}
