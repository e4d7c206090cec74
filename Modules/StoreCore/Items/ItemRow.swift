package import Data

/// One row of the `items` table, as stored: class, indexes and the two ciphertexts.
package struct ItemRow {
    /// The row id: the per-item id bound into both ciphertexts.
    package var id: Int64
    /// The item class.
    package var itemClass: ItemClass
    /// The access-group index.
    package var group: BlindIndex
    /// The unique-key index.
    package var unique: BlindIndex
    /// The primary-attribute index.
    package var primary: BlindIndex
    /// The row's version, for a backend whose rows carry one (``ItemStorage/rowVersions``): 1 when
    /// added, one more at each change, bound into both ciphertexts and the rows digest, so an older
    /// copy of the row put back is seen. `nil` for a backend without (SQLite: its format is unchanged).
    package var version: Int64?
    /// nonce ‖ encrypted attributes ‖ tag; empty in a joint row, and when the read did not need it.
    package var sealedAttributes: [UInt8] = []
    /// nonce ‖ encrypted padded secret ‖ tag, or in a joint row nonce ‖ encrypted attributes and secret ‖
    /// tag (``RowFormat``); empty when the read did not need it.
    package var sealedData: [UInt8] = []

    /// A row with the given cells; the ciphertexts default to empty (not read, or not sealed yet).
    @inlinable
    package init(
        id: Int64, itemClass: ItemClass, group: BlindIndex, unique: BlindIndex, primary: BlindIndex,
        sealedAttributes: [UInt8] = [], sealedData: [UInt8] = [], version: Int64? = nil
    ) {
        self.id = id
        self.itemClass = itemClass
        self.group = group
        self.unique = unique
        self.primary = primary
        self.sealedAttributes = sealedAttributes
        self.sealedData = sealedData
        self.version = version
    }

    /// A row under `id` with the given class and index cells and no ciphertexts yet.
    @inlinable
    package init(id: Int64, itemClass: ItemClass, cells: IndexCells, version: Int64? = nil) {
        self.init(
            id: id, itemClass: itemClass, group: cells.group, unique: cells.unique, primary: cells.primary,
            version: version)
    }

    /// The row's three index cells.
    @inlinable
    package var cells: IndexCells { IndexCells(group: group, unique: unique, primary: primary) }

    /// Whether the row, read with its ciphertexts, is a joint one (``RowFormat/joint``): its `attrs`
    /// column is empty. A format-1 row whose attributes were emptied reads as a joint row and then
    /// fails authentication (the data's additional data names its column), so it is damage either way.
    @inlinable
    package var isJoint: Bool { sealedAttributes.isEmpty }

    /// Additional-data column tags: a format-1 row's attributes and data, and a joint row's one ciphertext.
    package static let attributesColumn: UInt8 = 1
    package static let dataColumn: UInt8 = 2
    package static let jointColumn: UInt8 = 3
    /// Secrets and encoded attributes are padded to a multiple of this many bytes, so a ciphertext
    /// shows only a length bucket.
    package static let paddingBlock = 64

    /// Whether the row's indexes are the same as `other`'s (so its ciphertexts' additional data are too).
    @inlinable
    package func hasSameIndexes(as other: ItemRow) -> Bool {
        group == other.group && unique == other.unique && primary == other.primary
    }
}
