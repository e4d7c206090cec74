package import Data
package import Domain

/// Opening one row's envelope: its attributes and secret decrypted under the item keys, each bound
/// through its additional data to the store, the row's id, class and index cells (and version), and the
/// indexes recomputed from the decrypted attributes. The engine's reads, `verify` and salvage all open
/// rows here, so none of them accepts a row the others would refuse.
package enum RowOpening {
    /// The decrypted encoding (``AttributeCodec``) of a format-1 row's attributes.
    package static func attributeBytes(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) -> SecretBytes {
        try keys.withAdditionalData(column: ItemRow.attributesColumn, row: row) { additionalData throws(SecureStoreError) in
            try Sodium.openPadded(
                row.sealedAttributes, block: ItemRow.paddingBlock, additionalData: additionalData, key: keys.attributes,
                what: "an item's attributes")
        }
    }

    /// A row's attributes, decrypted and decoded; their class must be the row's.
    package static func attributes(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) -> ItemAttributes {
        if row.isJoint { return try both(row, keys: keys).attributes }
        let plain = try attributeBytes(row, keys: keys)
        return try checkedClass(plain.withUnsafeBytes { raw throws(SecureStoreError) in try AttributeCodec.decode(raw) }, row)
    }

    /// A row's attributes and secret, decrypted: one decryption for a joint row, two for a format-1 one.
    package static func both(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError)
        -> (attributes: ItemAttributes, data: SecretBytes)
    {
        guard row.isJoint else { return (try attributes(row, keys: keys), try data(row, keys: keys)) }
        var decoded: ItemAttributes?
        let secret = try JointEnvelope.open(row, keys: keys) { encoded throws(SecureStoreError) in
            decoded = try checkedClass(CompactAttributeCodec.decode(encoded), row)
        }
        guard let decoded else { throw .integrityFailure("an item's attributes are malformed") }
        return (decoded, secret)
    }

    /// `attributes`, when their class is the row's.
    private static func checkedClass(_ attributes: ItemAttributes, _ row: ItemRow) throws(SecureStoreError)
        -> ItemAttributes
    {
        guard attributes.itemClass == row.itemClass else { throw .integrityFailure("an item's class was changed") }
        return attributes
    }

    /// A row's secret, decrypted and unpadded.
    package static func data(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) -> SecretBytes {
        if row.isJoint { return try JointEnvelope.open(row, keys: keys) { _ throws(SecureStoreError) in } }
        return try keys.withAdditionalData(column: ItemRow.dataColumn, row: row) { additionalData throws(SecureStoreError) in
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
