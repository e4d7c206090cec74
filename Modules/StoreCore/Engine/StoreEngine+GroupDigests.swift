package import Data

/// Rows digests kept per access group (``ItemStorage/digestPerGroup``): a write locks the digest rows
/// of the groups it touches before reading their rows, so writers of different groups do not wait for
/// each other, and a handle re-checks only the groups that another connection changed.
///
/// A group's digest row is never deleted once made (an emptied group keeps a digest of no rows), and a
/// registry, the keyed digest of the set of groups that have one, changes only when a group gets its
/// first row: a deleted digest row disagrees with the registry, and rows of a group without a digest
/// row disagree with the empty digest they must then match.
extension StoreEngine {
    /// Inside the open write transaction: locks and reads the digests of `groups` (once each per
    /// transaction), checking each group's rows unless they were checked since another connection last
    /// changed them; gives a group written for the first time its digest row. No-op with one digest
    /// for the store (``beginDigest()`` read it).
    func lockDigests(_ groups: [BlindIndex]) throws(SecureStoreError) {
        guard storage.digestPerGroup, let keys else { return }
        var missing: [BlindIndex] = []
        for group in groups where !pendingDigests.contains(group) && !missing.contains(group) { missing.append(group) }
        guard !missing.isEmpty else { return }
        try adopt(try storage.lockGroupDigests(missing), keys: keys)
        let absent = missing.filter { !pendingDigests.contains($0) }
        guard !absent.isEmpty else { return }
        // New groups are made one at a time across the store, under the registry's lock; another writer
        // may have made one of them while this one waited.
        guard let encodedRegistry = try storage.loadGroupRegistry(locking: true) else { throw Self.registryMismatch }
        var registry = try RowsDigest(stored: encodedRegistry, role: .registry, keys: keys)
        try adopt(try storage.lockGroupDigests(absent), keys: keys)
        let new = absent.filter { !pendingDigests.contains($0) }
        guard !new.isEmpty else { return }
        try checkRegistry(registry, keys: keys)
        for group in new {
            // No digest row: the group must have no rows either, or its digest row was deleted.
            guard try computeDigest(group, keys: keys) == .empty else { throw RowsDigest.mismatch }
            try storage.storeGroupDigest(group, try sealDigest(.empty, scope: group, keys: keys), created: true)
            registry.insert(try RowsDigest.groupHash(group, keys: keys))
            pendingDigests[group] = .empty
        }
        try storage.storeGroupRegistry(try registry.stored(.registry, keys: keys))
    }

    /// Takes locked digest rows as the transaction's, each checked against its rows if needed.
    private func adopt(_ found: [BlindIndex: [UInt8]], keys: ItemKeys) throws(SecureStoreError) {
        for (group, encoded) in found {
            let digest = try openDigest(encoded, scope: group, keys: keys)
            try checkRowsIfChanged(group, against: digest, keys: keys)
            pendingDigests[group] = digest
        }
    }

    /// The groups an operation on `query` may touch, and the group `changes` move items to: their
    /// digests are locked before the operation reads a row.
    func lockDigests(for query: ItemAttributes, movingTo changes: ItemAttributes? = nil) throws(SecureStoreError) {
        guard storage.digestPerGroup else { return }
        var groups = try resolveGroupsForRead(query.accessGroup).map { groupIndexes[$0] }
        if let changes, let moved = changes.accessGroup { groups.append(groupIndexes[try resolveGroupForWrite(moved)]) }
        try lockDigests(groups)
    }

    /// Checks one group's rows before an answer of "none" or "all of them": against its digest, or,
    /// for a group never written, that no rows claim it and that no group's digest row was deleted.
    func confirmGroup(_ group: BlindIndex, keys: ItemKeys) throws(SecureStoreError) {
        if pendingDigests.contains(group) { return }  // Locked and checked by this write transaction.
        if let encoded = try storage.loadGroupDigests([group])[group] {
            return try checkRowsIfChanged(
                group, against: try openDigest(encoded, scope: group, keys: keys), keys: keys)
        }
        guard let encodedRegistry = try storage.loadGroupRegistry(locking: false) else { throw Self.registryMismatch }
        try checkRegistry(try RowsDigest(stored: encodedRegistry, role: .registry, keys: keys), keys: keys)
        guard try computeDigest(group, keys: keys) == .empty else { throw RowsDigest.mismatch }
    }

    /// Checks that the registry names exactly the groups that have a digest row.
    private func checkRegistry(_ registry: RowsDigest, keys: ItemKeys) throws(SecureStoreError) {
        var computed = RowsDigest.empty
        for (group, _) in try storage.allGroupDigests() {
            guard let group else { throw Self.registryMismatch }
            computed.insert(try RowsDigest.groupHash(group, keys: keys))
        }
        guard computed == registry else { throw Self.registryMismatch }
    }

    /// For ``verify()``: every group's rows match its digest, every row's group has one, and the
    /// registry names exactly the groups that have one.
    func groupsMatchDigests(keys: ItemKeys) throws(SecureStoreError) -> Bool {
        guard let encodedRegistry = try storage.loadGroupRegistry(locking: false) else { return false }
        try checkRegistry(try RowsDigest(stored: encodedRegistry, role: .registry, keys: keys), keys: keys)
        var stored: [BlindIndex: RowsDigest] = [:]
        for (group, encoded) in try storage.allGroupDigests() {
            guard let group else { return false }
            stored[group] = try RowsDigest(stored: encoded, role: .group(group), keys: keys)
        }
        let computed = try digestsOfRows(keys: keys)
        for (group, digest) in computed where stored[group] != digest { return false }
        for (group, digest) in stored where computed[group] == nil && digest != .empty { return false }
        return true
    }

    /// The digest of each group's rows as they are, from one pass over every row's index cells.
    package func digestsOfRows(keys: ItemKeys) throws(SecureStoreError) -> [BlindIndex: RowsDigest] {
        var digests: [BlindIndex: RowsDigest] = [:]
        try storage.forEachVersionedIndexEntry { id, classCode, cells, version throws(SecureStoreError) in
            guard let classCode, let cells else { throw RowsDigest.mismatch }
            digests[cells.group, default: .empty].insert(
                try RowsDigest.rowHash(
                    id: id, classCode: classCode, group: cells.group, unique: cells.unique, primary: cells.primary,
                    version: version, keys: keys))
        }
        return digests
    }

    /// The integrity failure for a registry of groups that does not name exactly the digest rows there are.
    static let registryMismatch = SecureStoreError.integrityFailure(
        "the rows digests of the access groups do not match their registry (a group's digest row was removed "
            + "or changed outside the store)")
}
