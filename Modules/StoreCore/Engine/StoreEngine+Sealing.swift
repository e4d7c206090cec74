import Data
import Domain
import Foundation

/// Writing rows: each item's indexes and both ciphertexts, sealed under the item keys and bound to the
/// row (its id, class and index cells are in the additional data).
extension StoreEngine {
    /// Inserts a new item under the next row id, `newest + 1`, read inside the write transaction. Row
    /// ids only grow while a handle inserts, but an id freed by deleting the newest item may be given
    /// again later, which binds nothing new to the old ciphertexts (their additional data also names
    /// the old item's indexes, and putting back an old row whole is the rollback the security model
    /// does not cover).
    func insert(_ full: ItemAttributes, data: SecretBytes, group: Int, keys: ItemKeys) throws(SecureStoreError) {
        let id = try storage.assignsRowIDs ? storage.newRowID() : storage.newestRowID() + 1
        let row = try sealedRow(id: id, full, data: data, group: group, keys: keys)
        try storage.insert(row)
        try digestInsert(row, keys: keys)
        nextID = id + 1
    }

    /// Inserts a new item under row id `guess` in one atomic step, if `guess` is still past every row id
    /// (no other process inserted since this handle did); returns `false`, having written nothing, if
    /// not.
    func insert(_ full: ItemAttributes, data: SecretBytes, group: Int, keys: ItemKeys, ifNewest guess: Int64)
        throws(SecureStoreError) -> Bool
    {
        let row = try sealedRow(id: guess, full, data: data, group: group, keys: keys)
        guard try storage.insertIfNewest(row) else { return false }
        try digestInsert(row, keys: keys)
        nextID = guess + 1
        return true
    }

    /// A new item's row under `id`: its indexes and both ciphertexts, bound to that id.
    private func sealedRow(id: Int64, _ full: ItemAttributes, data: SecretBytes, group: Int, keys: ItemKeys)
        throws(SecureStoreError) -> ItemRow
    {
        var row = try indexedRow(id: id, full, group: groupIndexes[group], keys: keys)
        row.version = storage.rowVersions ? storage.newRowVersion() : nil
        try sealRow(&row, full, data: data, keys: keys)
        return row
    }

    /// `old` with `changes` set over it: the attributes an update gives an item (its modification date
    /// aside).
    static func applying(_ changes: ItemAttributes, to old: ItemAttributes) -> ItemAttributes {
        var merged = old
        for (name, value) in changes.values { merged.setStoreManaged(name, value) }
        return merged
    }

    /// Applies `changes` (and new `data`) to one item; re-encrypts its data when its indexes moved.
    ///
    /// `row`'s indexes were authenticated when its attributes were decrypted (they are in the additional
    /// data), so without attribute changes they are reused as they are, and only the two ciphertexts
    /// are written: the backend's indexes are not touched.
    ///
    /// With `replacing`, `changes` is the item's whole new set of attributes (an import's `--update`)
    /// rather than changes merged over `old`; `modified` is the modification date to keep (an import's),
    /// `nil` for now.
    func rewrite(
        _ row: ItemRow, old: ItemAttributes, changes: ItemAttributes?, data: SecretBytes?, keys: ItemKeys,
        replacing: Bool = false, modified: Date? = nil
    ) throws(SecureStoreError) {
        var merged = if let changes { replacing ? changes : Self.applying(changes, to: old) } else { old }
        merged.setStoreManaged(.modificationDate, .date(modified ?? roundedNow()))
        var newRow: ItemRow
        if changes == nil {
            newRow = ItemRow(id: row.id, itemClass: row.itemClass, cells: row.cells)
        } else {
            let groupPosition = try resolveGroupForWrite(merged.accessGroup)
            newRow = try indexedRow(id: row.id, merged, group: groupIndexes[groupPosition], keys: keys)
        }
        newRow.version = row.version.map { _ in storage.newRowVersion() }
        let indexesMoved = !newRow.hasSameIndexes(as: row)
        if keys.rowFormat == .joint || row.isJoint {
            // One ciphertext holds both (or a joint row moves to a format-1 store's layout): sealed whole.
            let secret = if let data { data } else { try openData(row, keys: keys) }
            try sealRow(&newRow, merged, data: secret, keys: keys)
        } else {
            let nonces = Sodium.randomBytes(2 * Sodium.nonceBytes)
            try sealAttributes(&newRow, merged, keys: keys, nonce: nonces[..<Sodium.nonceBytes])
            if let data {
                try sealData(&newRow, data, keys: keys, nonce: nonces[Sodium.nonceBytes...])
            } else if indexesMoved || newRow.version != nil {
                // The data's additional data names the indexes and the version: sealed again under the new ones.
                try sealData(&newRow, try openData(row, keys: keys), keys: keys, nonce: nonces[Sodium.nonceBytes...])
            } else {
                newRow.sealedData = row.sealedData
            }
        }
        if indexesMoved {
            try storage.updateRow(newRow)
            try digestRemove(row, keys: keys)
            try digestInsert(newRow, keys: keys)
        } else {
            try storage.updateCiphertexts(
                ofRow: row.id, version: newRow.version, attributes: newRow.sealedAttributes, data: newRow.sealedData)
            if newRow.version != nil || digestsCiphertexts(keys) {
                // The version, or the ciphertexts, are in the digest: the row's entry changes with them.
                try digestRemove(row, keys: keys)
                try digestInsert(newRow, keys: keys)
            }
        }
    }

    /// `row` (found by unique key, its ciphertexts read and its indexes known) with `data` sealed as its
    /// new secret and its attributes resealed with a new modification date, rewritten in place in the
    /// decrypted encoding. `nil` when the encoding has no modification date to rewrite, or the row's
    /// layout is not the store's (the general path then rewrites it).
    func resealedForNewData(_ row: ItemRow, itemClass: ItemClass, data: SecretBytes, keys: ItemKeys)
        throws(SecureStoreError) -> ItemRow?
    {
        guard row.itemClass == itemClass else { throw .integrityFailure("an item's row disagrees with its unique index") }
        switch (keys.rowFormat, row.isJoint) {
        case (.joint, true): return try resealedJoint(row, itemClass: itemClass, data: data, keys: keys)
        case (.separate, false): break
        default: return nil
        }
        let plain = try openAttributeBytes(row, keys: keys)
        var encoded = plain.withUnsafeBytes { Array($0) }
        defer { encoded.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        guard encoded.first == itemClass.rawValue,
            AttributeCodec.replaceDate(.modificationDate, with: roundedNow(), in: &encoded)
        else { return nil }
        var newRow = ItemRow(
            id: row.id, itemClass: itemClass, cells: row.cells, version: row.version.map { _ in storage.newRowVersion() })
        let nonces = Sodium.randomBytes(2 * Sodium.nonceBytes)
        try sealAttributes(&newRow, encoded: encoded, keys: keys, nonce: nonces[..<Sodium.nonceBytes])
        try sealData(&newRow, data, keys: keys, nonce: nonces[Sodium.nonceBytes...])
        return newRow
    }

    /// ``resealedForNewData(_:itemClass:data:keys:)`` for a joint row: its plaintext opened, the
    /// attributes' modification date rewritten in place, and sealed again with the new secret.
    private func resealedJoint(_ row: ItemRow, itemClass: ItemClass, data: SecretBytes, keys: ItemKeys)
        throws(SecureStoreError) -> ItemRow?
    {
        var encoded: [UInt8] = []
        defer { encoded.withUnsafeMutableBytes { SecretBytes.wipe($0) } }
        _ = try JointEnvelope.open(row, keys: keys) { bytes throws(SecureStoreError) in encoded = Array(bytes) }
        guard encoded.first == itemClass.rawValue,
            CompactAttributeCodec.replaceDate(.modificationDate, with: roundedNow(), in: &encoded)
        else { return nil }
        var newRow = ItemRow(
            id: row.id, itemClass: itemClass, cells: row.cells, version: row.version.map { _ in storage.newRowVersion() })
        try JointEnvelope.seal(&newRow, encoded: encoded, data: data, keys: keys)
        return newRow
    }

    func indexedRow(id: Int64, _ attributes: ItemAttributes, group: BlindIndex, keys: ItemKeys)
        throws(SecureStoreError) -> ItemRow
    {
        ItemRow(
            id: id, itemClass: attributes.itemClass, group: group,
            unique: try keys.uniqueIndex(attributes, group: group),
            primary: try keys.primaryIndex(
                attributes.itemClass, value: attributes[attributes.itemClass.primaryAttribute], group: group))
    }
}
