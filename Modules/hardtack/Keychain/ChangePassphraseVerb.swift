import CommandLineKit
import Composition
import Data
import Domain
import StoreCore

/// `change-passphrase`: protect the store with a new passphrase, or switch it to a key file.
struct ChangePassphraseVerb: HardtackCommand {
    /// The variable that holds the new passphrase when no file is given.
    static let newPassphraseVariable = NewKeyArguments.passphraseVariable

    static let configuration = KeychainVerbs.configuration(
        ChangePassphraseVerb.self, name: "change-passphrase",
        abstract: "Protect the store with a new passphrase, or switch to a key file.",
        usage: NewKeyArguments.usageChoice,
        discussion: [
            "The current key comes from the global options as usual. The new passphrase comes from "
                + "--new-passphrase-file, else $\(newPassphraseVariable).",
            "Only the wrapped master key is rewritten, in one transaction (re-wrapped: the same master key); "
                + "afterwards the old passphrase or key no longer opens the store, but an older copy of the file or of "
                + "its header still opens with it, items written since included. After a leak, use rotate-key.",
        ])

    /// The new key.
    @OptionGroup var new: NewKeyArguments
    /// The store and its current key.
    @OptionGroup(title: KeychainVerbs.globalTitle) var store: StoreArguments

    func execute(_ context: CommandContext) async throws(CommandFailure) {
        let configuration = try store.configuration(context)
        let resolved = try new.key(context)
        var typed: KeySource?
        if resolved == nil { typed = try Self.typedPassphrase() }
        guard let newKey = resolved ?? typed else {
            throw context.usage(
                "give the new passphrase with --new-passphrase-file PATH or $\(Self.newPassphraseVariable), or a "
                    + "key file with --new-key-file PATH")
        }
        guard await configuration.storeExists else {
            throw .finding(.notFound, "there is no store at \(configuration.displayLocation) yet; add an item first")
        }
        let handle = try await StoreArguments.open(configuration)
        do throws(SecureStoreError) {
            try await handle.changeKey(to: newKey)
        } catch {
            throw .store(error)
        }
        Console.print("re-wrapped: the same master key. The store is now protected by \(newKey.summary).")
        Self.announce(newKey, replacing: configuration)
    }

    /// The warnings after a store's key changed to `newKey`: a test-cost passphrase, an old key file.
    static func announce(_ newKey: KeySource, replacing configuration: StoreConfiguration) {
        if case .passphrase = newKey { TestCostWarning.announce(configuration) }
        if case .keyFile(let oldPath) = configuration.key {
            if case .keyFile(let newPath) = newKey, newPath == oldPath { return }
            Console.print(
                "The key file \(oldPath) no longer opens it; delete that file once no backup of the store "
                    + "needs it.")
        }
    }

    /// The new passphrase typed twice at a terminal (echo off), when standard input is one; `nil` when it
    /// is not.
    /// - Throws: ``CommandFailure/finding(_:_:)`` when the two entries differ or are empty: nothing changed.
    private static func typedPassphrase() throws(CommandFailure) -> KeySource? {
        guard Console.inputIsTerminal else { return nil }
        switch Console.readSecretTwice(prompt: "New passphrase: ") {
        case .typed(let passphrase): return .passphrase(passphrase)
        case .empty, .tooLong: throw .finding(.failure, "no new passphrase was typed; nothing changed")
        case .differ: throw .finding(.failure, "the two entries differ; nothing changed")
        }
    }
}
