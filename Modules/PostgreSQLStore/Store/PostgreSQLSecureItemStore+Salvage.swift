public import Data
public import StoreCore

extension PostgreSQLSecureItemStore {
    /// Reads every item of the store at `uri` that still authenticates under `keySource`, row by row,
    /// without changing it. What is lost is named in the result.
    /// - Throws: ``SecureStoreError/wrongKey`` when the key opens no copy of the header;
    ///   ``SecureStoreError/integrityFailure(_:)`` when no header is left; storage errors when the server
    ///   cannot be read.
    public static func salvage(uri: String, keySource: KeySource) throws(SecureStoreError) -> SalvageResult {
        try StoreSalvage.recover(from: PostgreSQLSalvageSource(uri: uri), keySource: keySource)
    }
}
