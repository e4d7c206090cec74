import CommandLineKit
import Composition
import Data

/// `export`: every item the handle can see into one encrypted file, under a key of the file's own.
struct ExportVerb: HardtackCommand {
    static let to = Option<String>(
        "--to", value: "FILE", help: "The export file to write (0600; an existing file only with --overwrite).",
        isRequired: true, allowsEmpty: false)
    static let overwrite = Flag(
        "--overwrite", help: "Replace FILE if it exists (never the store, its journal files or a key file).")
    static let passphraseFile = Option<String>(
        "--export-passphrase-file", value: "PATH", help: "A file (mode 0600) whose first line protects the export.",
        allowsEmpty: false)
    static let keyFile = Option<String>(
        "--export-key-file", value: "PATH", help: "A file of 32 random bytes that protects the export instead.",
        allowsEmpty: false)
    static let json = Flag("--json", help: "Print one JSON object: {\"exported\": N}.")

    static let configuration = KeychainVerbs.configuration(
        name: "export", abstract: "Write every visible item into one encrypted export file.",
        options: [to, passphraseFile, keyFile, overwrite, json],
        usage: "\(to.declaration.synopsis) (\(passphraseFile.declaration.synopsis) | \(keyFile.declaration.synopsis)) "
            + "[--overwrite] [--json]",
        discussion: [
            "Every item the store's options can see (every class; --access-group limits it as for every verb), with "
                + "its attributes, dates, class, access group and secret, in one file sealed with libsodium's "
                + "secretstream (XChaCha20-Poly1305) under a key from the export passphrase (Argon2id MODERATE) or "
                + "the export key file. Nothing in the file is readable without it; the store's own key is not "
                + "needed to import it.",
            "An existing FILE is refused (exit 2) unless --overwrite; the store's own file, its -wal, -shm and "
                + "-journal, and every key or passphrase file the command reads are refused always.",
        ])
    static let sections = KeychainVerbs.sections([to, passphraseFile, keyFile, overwrite, json])

    let path: String
    let passphraseFile: String?
    let keyFile: String?
    let overwrite: Bool
    let json: Bool
    let store: StoreArguments

    init(from values: ParsedValues) throws(UsageError) {
        path = try values.value(Self.to) ?? ""  // required: the parser refuses a command line without it
        passphraseFile = try values.value(Self.passphraseFile)
        keyFile = try values.value(Self.keyFile)
        overwrite = values.isSet(Self.overwrite)
        json = values.isSet(Self.json)
        store = try StoreArguments(from: values)
    }

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        guard (passphraseFile == nil) != (keyFile == nil) else {
            throw context.usage("give the export's key: --export-passphrase-file PATH or --export-key-file PATH (one of them)")
        }
        let readFiles = [passphraseFile, keyFile, store.key.passphraseFile, store.key.keyFile].compactMap { $0 }
        if let refusal = ExportTarget.refusal(
            path, store: try store.configuration(context), protected: readFiles, overwrite: overwrite)
        {
            throw context.usage(refusal)
        }
        let handle = try store.openExisting(context)
        var lines = ProgressLines(verb: "export")
        let count: Int
        do throws(SecureStoreError) {
            count = try handle.export(
                to: path, passphraseFile: passphraseFile, keyFile: keyFile,
                testCost: context.environment["HARDTACK_ARGON2_COST"] == "interactive", replacing: overwrite
            ) { step, done, total in lines.report(step, done, total) }
        } catch {
            throw .store(error)
        }
        Console.print(json ? "{\"exported\": \(count)}" : "exported \(count) item\(count == 1 ? "" : "s") to \(path)")
    }
}
