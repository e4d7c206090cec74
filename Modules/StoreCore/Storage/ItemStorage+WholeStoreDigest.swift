package import Data

/// A backend that keeps one rows digest for the whole store (a single writer at a time, as SQLite)
/// needs none of the group-digest operations, and takes new row ids one past the newest.
extension ItemStorage {
    /// One digest for the store.
    package var digestPerGroup: Bool { false }

    /// Unused with one digest for the store.
    package func lockGroupDigests(_ groups: [BlindIndex]) throws(SecureStoreError) -> [BlindIndex: [UInt8]] {
        throw Self.noGroupDigests
    }

    /// Unused with one digest for the store.
    package func loadGroupDigests(_ groups: [BlindIndex]) throws(SecureStoreError) -> [BlindIndex: [UInt8]] {
        throw Self.noGroupDigests
    }

    /// Unused with one digest for the store.
    package func allGroupDigests() throws(SecureStoreError) -> [(group: BlindIndex?, encoded: [UInt8])] {
        throw Self.noGroupDigests
    }

    /// Unused with one digest for the store.
    package func storeGroupDigest(_ group: BlindIndex, _ encoded: [UInt8], created: Bool) throws(SecureStoreError) {
        throw Self.noGroupDigests
    }

    /// Unused with one digest for the store.
    package func loadGroupRegistry(locking: Bool) throws(SecureStoreError) -> [UInt8]? { throw Self.noGroupDigests }

    /// Unused with one digest for the store.
    package func storeGroupRegistry(_ encoded: [UInt8]) throws(SecureStoreError) { throw Self.noGroupDigests }

    /// Unused with one digest for the store.
    package func deleteGroupDigests() throws(SecureStoreError) { throw Self.noGroupDigests }

    /// The store's change counter: every group changes with it.
    package func groupChangeCounter(_ group: BlindIndex) throws(SecureStoreError) -> Int64 { try changeCounter() }

    /// Every row's index entry, filtered to one group.
    package func forEachVersionedIndexEntry(
        inGroup group: BlindIndex,
        _ visit: (_ id: Int64, _ classCode: Int64?, _ cells: IndexCells?, _ version: Int64?) throws(SecureStoreError)
            -> Void
    ) throws(SecureStoreError) {
        try forEachVersionedIndexEntry { id, classCode, cells, version throws(SecureStoreError) in
            if cells?.group == group { try visit(id, classCode, cells, version) }
        }
    }

    /// The core takes new row ids one past the newest, under the store's one write lock.
    package var assignsRowIDs: Bool { false }

    /// One past the newest row id.
    package func newRowID() throws(SecureStoreError) -> Int64 { try newestRowID() + 1 }

    private static var noGroupDigests: SecureStoreError {
        .storage(.store("this backend keeps one rows digest for the store, not one per access group", kind: .misuse))
    }
}
