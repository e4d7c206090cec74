import CommandLineKit
import Composition
import Data
import StoreCore

/// `salvage`: the items of a damaged store that still authenticate, read without changing it and
/// written into a new store.
struct SalvageVerb: HardtackCommand {
    static let configuration = KeychainVerbs.configuration(
        SalvageVerb.self, name: "salvage",
        abstract: "Copy every item of a damaged store that still authenticates into a new store.",
        discussion: [
            "Reads the store named by the global options without changing it: a file page by page without SQLite "
                + "(its write-ahead log's committed frames over the pages they replace, damaged pages, free pages, "
                + "overflow chains), a PostgreSQL store row by row. Every copy of an item row found is opened with "
                + "the store's key exactly as a read would: its attributes and secret must authenticate, bound to its "
                + "row, class and index cells. Of several authentic copies of one item the newest is kept (highest "
                + "modification date, then the newest page). Nothing that fails is ever written.",
            "The items go into a new store (--to, which must not exist and is not the damaged store), in one "
                + "transaction, under the new store's own key options (--to-*; a new file's default is its own .key "
                + "file). Items keep their attributes and access group (every group is salvaged; --access-group only "
                + "puts its groups first in the new store's); the new store dates them.",
            "Prints how many items were recovered and lost, naming each lost item by what is still known of it; exits "
                + "0 when everything came back (the store's rows digest matches the recovered rows), 65 when some "
                + "items were lost or whether any were cannot be told.",
            "JSON: {\"store\", \"to\", \"recovered\": N, \"lost\": N, \"expected\": N or null, \"matchesDigest\": BOOL, "
                + "\"partsRead\": N, \"damagedParts\": N, \"candidates\": N, \"superseded\": N, "
                + "\"lostItems\": [{\"row\", \"class\", \"problem\", \"attributes\"}]}.",
        ])

    /// `--to PATH|URI`: the new store.
    @Option(
        "--to", value: "PATH|URI", help: "The new store to write (a file or a postgresql:// URI that holds no store).",
        allowsEmpty: false)
    var target: String
    /// `--to-key-file PATH`, if given.
    @Option(
        "--to-key-file", value: "PATH",
        help: "The new store's key file (default: $HARDTACK_PASSPHRASE if set, else the new path + .key, created).",
        allowsEmpty: false)
    var targetKeyFile: String?
    /// `--to-passphrase-file PATH`, if given.
    @Option(
        "--to-passphrase-file", value: "PATH", help: "A file (mode 0600) whose first line protects the new store.",
        allowsEmpty: false)
    var targetPassphraseFile: String?
    /// `--to-key-env VAR`, if given.
    @Option(
        "--to-key-env", value: "VAR",
        help: "An environment variable holding the new store's key (64 hex digits or base64).", allowsEmpty: false)
    var targetKeyVariable: String?
    /// `--to-key-credential NAME`, if given.
    @Option(
        "--to-key-credential", value: "NAME", help: "A systemd credential holding the new store's key.",
        allowsEmpty: false)
    var targetCredentialName: String?
    /// `--json`.
    @Flag("--json", help: "Print one JSON object instead of text.") var json: Bool
    /// The damaged store.
    @OptionGroup(title: KeychainVerbs.globalTitle) var store: StoreArguments

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        let source = try store.configuration(context, onlyReads: true)
        let destination = try targetConfiguration(context, source: source)
        if let refusal = await SalvageTarget.refusal(destination, source: source) { throw context.usage(refusal) }
        let salvaged: SalvagedStore
        do throws(SecureStoreError) {
            salvaged = try await StoreSalvager.read(source)
        } catch .itemNotFound {
            throw .finding(.notFound, "there is no store at \(source.displayLocation) to salvage")
        } catch {
            throw .store(error)
        }
        // A new store only when there is something to put in it (or the damaged one held nothing).
        if salvaged.recovered > 0 || salvaged.isComplete {
            // All or nothing: a write that fails (a full disk) leaves no new store behind.
            let cleanup = NewStoreCleanup(destination)
            do throws(SecureStoreError) {
                _ = try await StoreSalvager.write(salvaged, to: destination)
            } catch {
                await cleanup.removeWhatWasCreated(destination)
                throw .store(error)
            }
        }
        SalvageReport(salvaged: salvaged, store: source.displayLocation, target: destination.displayLocation).print(json: json)
        guard salvaged.isComplete else {
            throw .finding(
                .damaged,
                "\(salvaged.lostCount) item\(salvaged.lostCount == 1 ? "" : "s") could not be recovered"
                    + (salvaged.expected == nil ? " (or how many were lost cannot be told: no rows digest was found)" : "")
                    + (salvaged.recovered > 0 ? "; the \(salvaged.recovered) recovered are in \(destination.displayLocation)" : "; nothing was written"))
        }
    }

    /// The new store's configuration: its own key options, resolved as every command resolves a store's
    /// (so with none named, a new file gets its own key file unless `HARDTACK_PASSPHRASE` is set).
    private func targetConfiguration(_ context: CommandContext, source: StoreConfiguration) throws(CommandFailure)
        -> StoreConfiguration
    {
        InlinePasswordWarning.check(target, option: "--to")
        let namesAKey =
            targetPassphraseFile != nil || targetKeyVariable != nil || targetCredentialName != nil || targetKeyFile != nil
        if StoreConfiguration.isPostgreSQL(target), !namesAKey {
            throw context.usage(
                "a PostgreSQL salvage target needs its key named: --to-key-file, --to-key-env, --to-key-credential or "
                    + "--to-passphrase-file")
        }
        do throws(SecureStoreError) {
            let key = try StoreArguments.key(
                passphraseFile: targetPassphraseFile, keyVariable: targetKeyVariable, credentialName: targetCredentialName,
                keyFile: targetKeyFile)
            return try StoreConfiguration.resolve(
                storePath: target, key: key, accessGroups: source.accessGroups,
                options: StoreOptions(passphraseCost: source.options.passphraseCost), environment: context.environment)
        } catch {
            throw .store(error)
        }
    }
}
