import Data

/// One row of the `items` table, as stored: class, indexes and the two ciphertexts.
struct ItemRow {
    /// The row id: the per-item id bound into both ciphertexts.
    var id: Int64
    /// The item class.
    var itemClass: ItemClass
    /// The access-group index.
    var group: BlindIndex
    /// The unique-key index.
    var unique: BlindIndex
    /// The primary-attribute index.
    var primary: BlindIndex
    /// nonce ‖ encrypted attributes ‖ tag (empty when the read did not need it).
    var sealedAttributes: [UInt8] = []
    /// nonce ‖ encrypted padded secret ‖ tag (empty when the read did not need it).
    var sealedData: [UInt8] = []

    /// Additional-data column tags.
    static let attributesColumn: UInt8 = 1
    static let dataColumn: UInt8 = 2
    /// Secrets and encoded attributes are padded to a multiple of this many bytes, so a ciphertext
    /// shows only a length bucket.
    static let paddingBlock = 64

    /// Whether the row's indexes are the same as `other`'s (so its ciphertexts' additional data are too).
    func hasSameIndexes(as other: ItemRow) -> Bool {
        group == other.group && unique == other.unique && primary == other.primary
    }
}
