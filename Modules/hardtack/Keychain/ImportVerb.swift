import CommandLineKit
import Composition
import Data

/// `import`: the items of an export file into this store, all or none.
struct ImportVerb: HardtackCommand {
    static let configuration = KeychainVerbs.configuration(
        ImportVerb.self, name: "import", abstract: "Add the items of an export file, all or none.",
        usage: ImportVerb.usageLine,
        discussion: [
            "The whole file is read and authenticated before anything is written: a file cut short, reordered or "
                + "changed anywhere is refused as a whole (exit 65), a wrong export key is exit 77. Then every item "
                + "is added in one transaction; an item that exists is an error (exit 45) unless -U. Items keep "
                + "their attributes, access group (the store's options must include it) and dates; -U replaces "
                + "an existing item with the export's and keeps its creation date. Into any store: a file or "
                + "PostgreSQL, new or existing.",
        ])

    /// The usage line: the export's key is one of two options.
    private static var usageLine: String {
        let verb = ImportVerb()
        return [
            verb.$path.usageSynopsis, ExportKeyArguments.usageChoice, verb.$update.usageSynopsis,
            verb.$json.usageSynopsis,
        ].joined(separator: " ")
    }

    /// `--from FILE`: the export file.
    @Option("--from", value: "FILE", help: "The export file to read.", allowsEmpty: false) var path: String
    /// What protects the export: one of its two options.
    @OptionGroup var exportKey: ExportKeyArguments
    /// `-U`: update an item that exists.
    @Flag("-U", "--update", help: "Update an item that exists (keeping its creation date) instead of refusing.")
    var update: Bool
    /// `--json`.
    @Flag("--json", help: "Print one JSON object: {\"added\": N, \"updated\": N}.") var json: Bool
    /// The store.
    @OptionGroup(title: KeychainVerbs.globalTitle) var store: StoreArguments

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        // The whole file is read and authenticated before the store is even opened.
        let contents: ExportContents
        do throws(SecureStoreError) {
            contents = try await KeychainHandle.readExport(from: path, key: try exportKey.key())
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
        let result = try await store.withStore(context) { handle async throws(CommandFailure) -> (added: Int, updated: Int) in
            do throws(SecureStoreError) {
                var lines = ProgressLines(verb: "import")
                return try await handle.add(contents, update: update) { step, done, total in lines.report(step, done, total) }
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
