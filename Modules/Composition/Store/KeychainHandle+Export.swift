public import Data
import StoreCore

/// Export and import: every item the handle can see, in one file under a key of its own.
extension KeychainHandle {
    /// What protects an export file: a passphrase file (its first line) or a key file of 32 bytes.
    static func exportKey(passphraseFile: String?, keyFile: String?) throws(SecureStoreError) -> ExportKey {
        if let passphraseFile { return .passphrase(try PassphraseFile.readFirstLine(passphraseFile)) }
        if let keyFile { return .keyFile(path: keyFile) }
        throw .invalidKeyMaterial("an export needs its own passphrase file or key file")
    }

    /// Writes every item this handle can see to a new encrypted file at `path` (over an existing one
    /// only with `replacing`); `progress` is called with (step, done, total) as items are read from
    /// the store and written to the file. Returns how many items were written.
    public func export(
        to path: String, passphraseFile: String?, keyFile: String?, testCost: Bool = false, replacing: Bool = false,
        progress: (ExportStep, Int, Int) -> Void = { _, _, _ in }
    ) throws(SecureStoreError) -> Int {
        try StoreExport.write(
            from: items, to: path, key: try Self.exportKey(passphraseFile: passphraseFile, keyFile: keyFile),
            cost: testCost ? .interactive : .moderate, replacing: replacing, progress: progress)
    }

    /// Reads and authenticates the whole export at `path`, refusing it whole when it does not.
    /// - Throws: ``SecureStoreError/wrongKey`` for the wrong export key, ``SecureStoreError/integrityFailure(_:)``
    ///   for a file cut short, reordered or changed.
    public static func readExport(from path: String, passphraseFile: String?, keyFile: String?)
        throws(SecureStoreError) -> ExportContents
    {
        ExportContents(
            items: try StoreExport.read(from: path, key: try exportKey(passphraseFile: passphraseFile, keyFile: keyFile)))
    }

    /// Adds the items of an export in one transaction; with `update`, an item that exists is replaced
    /// instead of refused. `progress` is called with (step, done, total) after each item.
    public func add(
        _ contents: ExportContents, update: Bool, progress: (ExportStep, Int, Int) -> Void = { _, _, _ in }
    ) throws(SecureStoreError) -> (added: Int, updated: Int) {
        let summary = try StoreExport.add(contents.items, to: items, update: update, progress: progress)
        return (summary.added, summary.updated)
    }
}

/// The items of an export file, read and authenticated, ready to add to a store.
public struct ExportContents: Sendable {
    let items: [ExportedItem]

    /// How many items the export holds.
    public var count: Int { items.count }
}
