import Data

/// One row of the `items` table, as stored: class, indexes and the two ciphertexts.
struct ItemRow {
    /// The row id: the per-item id bound into both ciphertexts.
    var id: Int64
    /// The item class.
    var itemClass: ItemClass
    /// The access-group index.
    var group: [UInt8]
    /// The unique-key index.
    var unique: [UInt8]
    /// The primary-attribute index.
    var primary: [UInt8]
    /// nonce ‖ encrypted attributes ‖ tag.
    var sealedAttributes: [UInt8] = []
    /// nonce ‖ encrypted padded secret ‖ tag.
    var sealedData: [UInt8] = []

    /// Additional-data column tags.
    static let attributesColumn: UInt8 = 1
    static let dataColumn: UInt8 = 2
    /// Secrets and encoded attributes are padded to a multiple of this many bytes, so a ciphertext
    /// shows only a length bucket.
    static let paddingBlock = 64
}
