package import Data
package import Domain

/// Opening one row's envelope: its attributes and secret decrypted under the item keys, each bound
/// through its additional data to the store, the row's id, class and index cells (and version), and the
/// indexes recomputed from the decrypted attributes. The engine's reads, `verify` and salvage all open
/// rows here, so none of them accepts a row the others would refuse.
package enum RowOpening {
    /// The decrypted encoding of a row's attributes.
    package static func attributeBytes(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) -> SecretBytes {
        try keys.withAdditionalData(column: ItemRow.attributesColumn, row: row) { additionalData throws(SecureStoreError) in
            try Sodium.openPadded(
                row.sealedAttributes, block: ItemRow.paddingBlock, additionalData: additionalData, key: keys.attributes,
                what: "an item's attributes")
        }
    }

    /// A row's attributes, decrypted and decoded; their class must be the row's.
    package static func attributes(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) -> ItemAttributes {
        let plain = try attributeBytes(row, keys: keys)
        let attributes = try plain.withUnsafeBytes { raw throws(SecureStoreError) in try AttributeCodec.decode(raw) }
        guard attributes.itemClass == row.itemClass else { throw .integrityFailure("an item's class was changed") }
        return attributes
    }

    /// A row's secret, decrypted and unpadded.
    package static func data(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) -> SecretBytes {
        try keys.withAdditionalData(column: ItemRow.dataColumn, row: row) { additionalData throws(SecureStoreError) in
            try Sodium.openPadded(
                row.sealedData, block: ItemRow.paddingBlock, additionalData: additionalData, key: keys.data,
                what: "an item's data")
        }
    }

    /// Whether the row's three index cells are the ones its decrypted attributes give.
    package static func indexesAgree(_ row: ItemRow, with attributes: ItemAttributes, keys: ItemKeys) -> Bool {
        do {
            let group = try keys.groupIndex(attributes.accessGroup ?? "")
            return try group == row.group && keys.uniqueIndex(attributes, group: group) == row.unique
                && keys.primaryIndex(row.itemClass, value: attributes[row.itemClass.primaryAttribute], group: group)
                    == row.primary
        } catch {
            return false
        }
    }
}
