public import Data
public import StoreCore

/// Export and import: every item the handle can see, in one file under a key of its own.
extension KeychainHandle {
    /// Writes every item this handle can see to a new encrypted file at `path` (over an existing one
    /// only with `replacing`), protected by `key` (a passphrase stretched at `cost`, or a key file);
    /// `progress` is called with (step, done, total) as items are read from the store and written to the
    /// file. Returns how many items were written.
    public func export(
        to path: String, key: ExportKey, cost: Argon2Cost = .moderate, replacing: Bool = false,
        progress: (ExportStep, Int, Int) -> Void = { _, _, _ in }
    ) throws(SecureStoreError) -> Int {
        try StoreExport.write(from: items, to: path, key: key, cost: cost, replacing: replacing, progress: progress)
    }

    /// Reads and authenticates the whole export at `path` with `key`, refusing it whole when it does not.
    /// - Throws: ``SecureStoreError/wrongKey`` for the wrong export key, ``SecureStoreError/integrityFailure(_:)``
    ///   for a file cut short, reordered or changed.
    public static func readExport(from path: String, key: ExportKey) throws(SecureStoreError) -> ExportContents {
        ExportContents(items: try StoreExport.read(from: path, key: key))
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
