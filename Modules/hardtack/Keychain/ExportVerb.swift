import CommandLineKit
import Composition
import Data
import StoreCore

/// `export`: every item the handle can see into one encrypted file, under a key of the file's own.
struct ExportVerb: HardtackCommand {
    static let configuration = KeychainVerbs.configuration(
        ExportVerb.self, name: "export", abstract: "Write every visible item into one encrypted export file.",
        usage: ExportVerb.usageLine,
        discussion: [
            "Every item the store's options can see (every class; --access-group limits it as for every verb), with "
                + "its attributes, dates, class, access group and secret, in one file sealed with libsodium's "
                + "secretstream (XChaCha20-Poly1305) under a key from the export passphrase (Argon2id MODERATE) or "
                + "the export key file. Nothing in the file is readable without it; the store's own key is not "
                + "needed to import it.",
            "An existing FILE is refused (exit 2) unless --overwrite; the store's own file, its -wal, -shm and "
                + "-journal, and every key or passphrase file the command reads are refused always.",
        ])

    /// The usage line: the export's key is one of two options.
    private static var usageLine: String {
        let verb = ExportVerb()
        return [
            verb.$path.usageSynopsis, ExportKeyArguments.usageChoice, verb.$overwrite.usageSynopsis,
            verb.$json.usageSynopsis,
        ].joined(separator: " ")
    }

    /// `--to FILE`: the export file.
    @Option(
        "--to", value: "FILE", help: "The export file to write (0600; an existing file only with --overwrite).",
        allowsEmpty: false)
    var path: String
    /// What protects the export: one of its two options.
    @OptionGroup var exportKey: ExportKeyArguments
    /// `--overwrite`.
    @Flag("--overwrite", help: "Replace FILE if it exists (never the store, its journal files or a key file).")
    var overwrite: Bool
    /// `--json`.
    @Flag("--json", help: "Print one JSON object: {\"exported\": N}.") var json: Bool
    /// The store.
    @OptionGroup(title: KeychainVerbs.globalTitle) var store: StoreArguments

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        let passphraseFile = exportKey.passphraseFile
        let keyFile = exportKey.keyFile
        let readFiles = [passphraseFile, keyFile, store.passphraseFile, store.keyFile].compactMap { $0 }
        if let refusal = ExportTarget.refusal(
            path, store: try store.configuration(context), protected: readFiles, overwrite: overwrite)
        {
            throw context.usage(refusal)
        }
        let handle = try await store.openExisting(context)
        var lines = ProgressLines(verb: "export")
        let count: Int
        do throws(SecureStoreError) {
            let cost: Argon2Cost =
                context.environment[StoreConfiguration.passphraseCostVariable] == "interactive" ? .interactive : .moderate
            let key = try exportKey.key()
            count = try await handle.export(to: path, key: key, cost: cost, replacing: overwrite) {
                step, done, total in lines.report(step, done, total)
            }
            if case .passphrase = key { TestCostWarning.announce(cost: cost) }
        } catch {
            throw .store(error)
        }
        Console.print(json ? "{\"exported\": \(count)}" : "exported \(count) item\(count == 1 ? "" : "s") to \(path)")
    }
}
