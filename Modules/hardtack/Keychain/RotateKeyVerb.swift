import CommandLineKit
import Composition
import Data
import Domain
import StoreCore

/// `rotate-key`: a new master key, every item re-sealed under it, wrapped under the current passphrase
/// or key or a new one. What to run after a passphrase or key leaked, where `change-passphrase` only
/// re-wraps the same master key.
struct RotateKeyVerb: HardtackCommand {
    static let configuration = KeychainVerbs.configuration(
        RotateKeyVerb.self, name: "rotate-key",
        abstract: "Give the store a new master key and re-seal every item under it (after a leak).",
        usage: NewKeyArguments.usageChoice,
        discussion: [
            "The current key comes from the global options as usual. The new master key is wrapped under the "
                + "passphrase from --new-passphrase-file, else $\(ChangePassphraseVerb.newPassphraseVariable), or "
                + "under --new-key-file; with none of them, under the current passphrase or key.",
            "Every item of the store (every access group) is decrypted and sealed again under the new key, in one "
                + "transaction that other writers wait for. Afterwards an older copy of the file or of its header, "
                + "with the old passphrase or key, opens nothing the store holds. Stopped midway (Ctrl-C, a crash), "
                + "it changes nothing: run it again. A damaged store is refused (exit 65): salvage it first. A store "
                + "made by an older Hardtack (format 2 or 3) leaves in the current format, whose rows digest also "
                + "catches an older copy of one item put back.",
            "For 100 items or more it prints a line per tenth on stderr. Other processes that have the store open "
                + "must open it again.",
        ])

    /// The new key (none: the current one).
    @OptionGroup var new: NewKeyArguments
    /// The store and its current key.
    @OptionGroup(title: KeychainVerbs.globalTitle) var store: StoreArguments

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        let configuration = try store.configuration(context)
        let newKey =
            try new.key(context) ?? configuration.key
        guard await configuration.storeExists else {
            throw .finding(.notFound, "there is no store at \(configuration.displayLocation) yet; add an item first")
        }
        let handle = try await StoreArguments.open(configuration)
        let count: Int
        do throws(SecureStoreError) {
            var lines = ProgressLines(verb: "rotate-key")
            count = try await handle.rotateKey(to: newKey) { done, total in lines.reportResealed(done, total) }
        } catch {
            throw .store(error)
        }
        Console.print(
            "rotated: a new master key, \(count) item\(count == 1 ? "" : "s") re-sealed. The store is now protected by "
                + "\(newKey.summary).")
        ChangePassphraseVerb.announce(newKey, replacing: configuration)
    }
}
