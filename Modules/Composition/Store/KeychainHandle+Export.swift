package import Data
package import StoreCore

/// Export and import: every item the handle can see, in one file under a key of its own. These block the
/// caller's thread; the awaited forms (KeychainHandle+Async) run on the store's threads.
extension KeychainHandle {
    /// ``export(to:key:cost:replacing:progress:)``, on the caller's thread.
    package func export(
        to path: String, key: ExportKey, cost: Argon2Cost = .moderate, replacing: Bool = false,
        progress: (ExportStep, Int, Int) -> Void = { _, _, _ in }
    ) throws(SecureStoreError) -> Int {
        try StoreExport.write(from: items, to: path, key: key, cost: cost, replacing: replacing, progress: progress)
    }

    /// ``readExport(from:key:)``, on the caller's thread.
    package static func readExport(from path: String, key: ExportKey) throws(SecureStoreError) -> ExportContents {
        ExportContents(items: try StoreExport.read(from: path, key: key))
    }

    /// ``add(_:update:progress:)``, on the caller's thread.
    package func add(
        _ contents: ExportContents, update: Bool, progress: (ExportStep, Int, Int) -> Void = { _, _, _ in }
    ) throws(SecureStoreError) -> (added: Int, updated: Int) {
        let summary = try StoreExport.add(contents.items, to: items, update: update, progress: progress)
        return (summary.added, summary.updated)
    }
}
