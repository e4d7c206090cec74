public import Data
public import StoreCore

extension SQLiteSecureItemStore {
    /// Reads every item of the store file at `path` that still authenticates under `keySource`, without
    /// changing the file: page by page, without SQLite, its damaged and free pages and its `-wal` included,
    /// the newest copy of each item kept. What is lost is named in the result.
    /// - Throws: ``SecureStoreError/wrongKey`` when the key opens no copy of the header;
    ///   ``SecureStoreError/integrityFailure(_:)`` when no header is left; storage errors when the file
    ///   cannot be read at all.
    public static func salvage(at path: String, keySource: KeySource) throws(SecureStoreError) -> SalvageResult {
        try StoreSalvage.recover(from: SQLiteSalvageSource(path: path), keySource: keySource)
    }
}
