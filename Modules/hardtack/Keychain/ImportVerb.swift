import CommandLineKit
import Composition
import Data

/// `import`: the items of an export file into this store, all or none.
struct ImportVerb: HardtackCommand {
    static let from = Option<String>(
        "--from", value: "FILE", help: "The export file to read.", isRequired: true, allowsEmpty: false)
    static let update = Flag("-U", "--update", help: "Update an item that exists (keeping its creation date) instead of refusing.")
    static let json = Flag("--json", help: "Print one JSON object: {\"added\": N, \"updated\": N}.")

    static let configuration = KeychainVerbs.configuration(
        name: "import", abstract: "Add the items of an export file, all or none.",
        options: [from, ExportVerb.passphraseFile, ExportVerb.keyFile, update, json],
        usage: "\(from.declaration.synopsis) (\(ExportVerb.passphraseFile.declaration.synopsis) | "
            + "\(ExportVerb.keyFile.declaration.synopsis)) [-U] [--json]",
        discussion: [
            "The whole file is read and authenticated before anything is written: a file cut short, reordered or "
                + "changed anywhere is refused as a whole (exit 65), a wrong export key is exit 77. Then every item "
                + "is added in one transaction; an item that exists is an error (exit 45) unless -U. Items keep "
                + "their attributes, access group (the store's options must include it) and dates; -U replaces "
                + "an existing item with the export's and keeps its creation date. Into any store: a file or "
                + "PostgreSQL, new or existing.",
        ])
    static let sections = KeychainVerbs.sections([from, ExportVerb.passphraseFile, ExportVerb.keyFile, update, json])

    let path: String
    let passphraseFile: String?
    let keyFile: String?
    let update: Bool
    let json: Bool
    let store: StoreArguments

    init(from values: ParsedValues) throws(UsageError) {
        path = try values.value(Self.from) ?? ""  // required: the parser refuses a command line without it
        passphraseFile = try values.value(ExportVerb.passphraseFile)
        keyFile = try values.value(ExportVerb.keyFile)
        update = values.isSet(Self.update)
        json = values.isSet(Self.json)
        store = try StoreArguments(from: values)
    }

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        guard (passphraseFile == nil) != (keyFile == nil) else {
            throw context.usage("give the export's key: --export-passphrase-file PATH or --export-key-file PATH (one of them)")
        }
        // The whole file is read and authenticated before the store is even opened.
        let contents: ExportContents
        do throws(SecureStoreError) {
            contents = try KeychainHandle.readExport(from: path, passphraseFile: passphraseFile, keyFile: keyFile)
        } catch .integrityFailure(let reason) {
            // The file, not the store, failed its check.
            throw .finding(.damaged, "the export file is damaged or was tampered with (\(reason)); nothing was imported")
        } catch .wrongKey {
            throw .finding(
                .wrongKey,
                "the export passphrase or key file does not open this export (a wrong passphrase or key file, or "
                    + "the header's salt or cost was changed); nothing was imported")
        } catch {
            throw .store(error)
        }
        let result = try store.withStore(context) { handle throws(CommandFailure) -> (added: Int, updated: Int) in
            do throws(SecureStoreError) {
                var lines = ProgressLines(verb: "import")
                return try handle.add(contents, update: update) { step, done, total in lines.report(step, done, total) }
            } catch {
                throw .store(error)
            }
        }
        Console.print(
            json
                ? "{\"added\": \(result.added), \"updated\": \(result.updated)}"
                : "imported \(result.added) new item\(result.added == 1 ? "" : "s")"
                    + (update ? ", updated \(result.updated)" : "") + " from \(path)")
    }
}
