import Data

/// Saying "duplicate item" only of an item that is there.
extension StoreEngine {
    /// What to report when an add, a restore or an update of an item to `attributes` (in group number
    /// `group`) found its unique key taken: ``SecureStoreError/duplicateItem`` once the row holding the
    /// key has been read and its attributes authenticated, an integrity failure when that row does not
    /// open.
    ///
    /// The backend's unique index is what refuses the key, and on SQLite a lookup reads its indexed cells
    /// from the index: an entry edited to point at another item's row would make that item the
    /// "duplicate" of one the store does not hold. Opening the row, whose ciphertext is bound to its
    /// own cells, tells the two apart. Called only on that failure, outside the failed write (inside a
    /// caller's transaction, its savepoint is rolled back by then), so it costs the usual path nothing.
    func confirmedDuplicate(_ attributes: ItemAttributes, group: Int, keys: ItemKeys) -> SecureStoreError {
        do throws(SecureStoreError) {
            let group = groupIndexes[group]
            for row in try rowsWithUniqueKey(of: attributes, group: group, keys: keys, columns: .attributes) {
                _ = try openAttributes(row, keys: keys)
            }
        } catch {
            return error
        }
        // Found and sound, or gone since (another writer deleted it after the refusal): a duplicate then.
        return .duplicateItem
    }
}
