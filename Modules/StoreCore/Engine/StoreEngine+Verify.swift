package import Data

/// The store's full check: every item opened, the indexes compared, the rows digest matched.
extension StoreEngine {
    /// Decrypts and checks every item in the store (every group), counting sound and damaged ones, and
    /// runs the backend's structural check and the rows-digest check.
    package func verify() throws(SecureStoreError) -> VerifyReport {
        var report: VerifyReport?
        // One snapshot: a write committed by another connection between reading the rows and the
        // digest must not read as damage.
        try readSnapshot { () throws(SecureStoreError) in report = try verifyInSnapshot() }
        guard let report else { throw .storage(.store("the check did not run", kind: .other)) }
        return report
    }

    private func verifyInSnapshot() throws(SecureStoreError) -> VerifyReport {
        let keys = try unlockedKeys()
        var sound = 0
        let (rows, unreadable) = try storage.rows(.all, columns: [.attributes, .data])
        var damaged = unreadable
        var items: [DamagedItem] = []
        for row in rows {
            guard let attributes = try? openAttributes(row, keys: keys) else {
                damaged += 1
                items.append(DamagedItem(rowID: row.id, itemClass: row.itemClass, damage: .attributes))
                continue
            }
            let name = Self.naming(attributes)
            let indexesAgree = RowOpening.indexesAgree(row, with: attributes, keys: keys)
            guard indexesAgree else {
                damaged += 1
                items.append(DamagedItem(rowID: row.id, itemClass: row.itemClass, damage: .indexes, name: name))
                continue
            }
            // A joint row's secret authenticated with its attributes, in the one ciphertext they share.
            guard row.isJoint || (try? openData(row, keys: keys)) != nil else {
                damaged += 1
                items.append(DamagedItem(rowID: row.id, itemClass: row.itemClass, damage: .data, name: name))
                continue
            }
            sound += 1
        }
        var check = try storage.structuralCheck()
        let digestMatches = try rowsMatchDigest(keys: keys)
        if check == "ok", !digestMatches {
            check = "item rows do not match their digest (a row was removed or its indexes changed)"
        }
        return VerifyReport(
            soundItems: sound, damagedItems: damaged, databaseCheck: check, damaged: items, digestMatches: digestMatches)
    }

    /// The attributes that name an item in a report: its primary attribute, account and label.
    private static func naming(_ attributes: ItemAttributes) -> [AttributeName: AttributeValue] {
        var name: [AttributeName: AttributeValue] = [:]
        for attribute in [attributes.itemClass.primaryAttribute, .account, .label] {
            if let value = attributes[attribute] { name[attribute] = value }
        }
        return name
    }
}
