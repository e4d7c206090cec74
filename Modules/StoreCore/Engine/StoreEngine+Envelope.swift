import Data
import Domain

/// The crypto envelope of one row: each ciphertext padded to a length bucket and bound to the row's
/// id, class and index cells through its additional data.
extension StoreEngine {
    /// Encrypts the attributes into `row`, padded like the data (so the ciphertext shows only a length
    /// bucket of the names it holds) and bound to the row's indexes.
    ///
    /// The writes seal both ciphertexts of a row at once and draw their two random nonces in one call
    /// (one system call rather than two); each nonce is used once, as a fresh one would be.
    func sealAttributes(_ row: inout ItemRow, _ attributes: ItemAttributes, keys: ItemKeys, nonce: ArraySlice<UInt8>)
        throws(SecureStoreError)
    {
        var encoded = AttributeCodec.encode(attributes)
        defer { encoded.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        try sealAttributes(&row, encoded: encoded, keys: keys, nonce: nonce)
    }

    /// Encrypts already encoded attributes into `row`.
    func sealAttributes(_ row: inout ItemRow, encoded: [UInt8], keys: ItemKeys, nonce: ArraySlice<UInt8>)
        throws(SecureStoreError)
    {
        let sealed = try keys.withAdditionalData(column: ItemRow.attributesColumn, row: row) {
            additionalData throws(SecureStoreError) in
            try encoded.withUnsafeBytes { raw in
                Result { () throws(SecureStoreError) in
                    try Sodium.sealPadded(
                        raw, block: ItemRow.paddingBlock, additionalData: additionalData, key: keys.attributes,
                        nonce: nonce)
                }
            }.get()
        }
        row.sealedAttributes = sealed
    }

    /// Encrypts the padded secret into `row`, bound to the row's indexes.
    func sealData(_ row: inout ItemRow, _ data: SecretBytes, keys: ItemKeys, nonce: ArraySlice<UInt8>)
        throws(SecureStoreError)
    {
        let sealed = try keys.withAdditionalData(column: ItemRow.dataColumn, row: row) {
            additionalData throws(SecureStoreError) in
            try data.withUnsafeBytes { raw throws(SecureStoreError) in
                try Sodium.sealPadded(
                    raw, block: ItemRow.paddingBlock, additionalData: additionalData, key: keys.data, nonce: nonce)
            }
        }
        row.sealedData = sealed
    }

    /// Seals `attributes` and `data` into `row` in the store's layout (``ItemKeys/rowFormat``).
    func sealRow(_ row: inout ItemRow, _ attributes: ItemAttributes, data: SecretBytes, keys: ItemKeys)
        throws(SecureStoreError)
    {
        switch keys.rowFormat {
        case .joint:
            try JointEnvelope.seal(&row, attributes, data: data, keys: keys)
        case .separate:
            let nonces = Sodium.randomBytes(2 * Sodium.nonceBytes)
            try sealAttributes(&row, attributes, keys: keys, nonce: nonces[..<Sodium.nonceBytes])
            try sealData(&row, data, keys: keys, nonce: nonces[Sodium.nonceBytes...])
        }
    }

    /// The decrypted encoding of a format-1 row's attributes (see ``RowOpening``).
    func openAttributeBytes(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) -> SecretBytes {
        try RowOpening.attributeBytes(row, keys: keys)
    }

    /// A row's attributes, decrypted and decoded; their class must be the row's.
    func openAttributes(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) -> ItemAttributes {
        try RowOpening.attributes(row, keys: keys)
    }

    /// A row's secret, decrypted and unpadded.
    func openData(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) -> SecretBytes {
        try RowOpening.data(row, keys: keys)
    }
}
