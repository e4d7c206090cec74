package import Data

/// The store's full check, for `hardtack keychain verify`.
extension StoreEngine {
    /// Decrypts and checks every item in the store (every group), counting sound and damaged ones, and
    /// runs the backend's structural check and the rows-digest check.
    package func verify() throws(SecureStoreError) -> VerifyReport {
        let keys = try unlockedKeys()
        var sound = 0
        let (rows, unreadable) = try storage.rows(.all, columns: [.attributes, .data])
        var damaged = unreadable
        for row in rows {
            do {
                let attributes = try openAttributes(row, keys: keys)
                let group = try keys.groupIndex(attributes.accessGroup ?? "")
                guard group == row.group,
                    try keys.uniqueIndex(attributes, group: group) == row.unique,
                    try keys.primaryIndex(row.itemClass, value: attributes[row.itemClass.primaryAttribute], group: group)
                        == row.primary
                else { throw SecureStoreError.integrityFailure("indexes disagree") }
                _ = try openData(row, keys: keys)
                sound += 1
            } catch {
                damaged += 1
            }
        }
        var check = try storage.structuralCheck()
        if check == "ok", try !rowsMatchDigest(keys: keys) {
            check = "item rows do not match their digest (a row was removed or its indexes changed)"
        }
        return VerifyReport(soundItems: sound, damagedItems: damaged, databaseCheck: check)
    }
}
