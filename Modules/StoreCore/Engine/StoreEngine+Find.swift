package import Data
import Domain

/// Reads: a find, checked as its answer needs (a list or "none" against the rows digest; from format 4
/// on SQLite, a "found" too, against an older row put back).
extension StoreEngine {
    /// Finds items. See ``SecureItemTransaction/find(_:limit:returning:)``. `visited` is told how many
    /// matches were read (and decrypted) so far, after each one (an export's progress).
    package func find(
        _ query: ItemAttributes, limit: MatchLimit, returning parts: ItemParts, visited: (Int) -> Void = { _ in }
    ) throws(SecureStoreError) -> [StoredItem] {
        let keys = try unlockedKeys()
        var read = try findOnce(query, limit: limit, returning: parts, keys: keys, visited: visited)
        // Where another connection wrote since the rows last matched their digest (or they were never
        // checked), check them and read again: the answer is given only from a read that saw no commit
        // since the rows it read matched.
        for _ in 0..<Self.checkedReadAttempts {
            if isCurrent(read.version, keys: keys) { return read.items }
            try readSnapshot { () throws(SecureStoreError) in try confirmCurrent(keys: keys) }
            read = try findOnce(query, limit: limit, returning: parts, keys: keys, visited: visited)
        }
        if isCurrent(read.version, keys: keys) { return read.items }
        // Other processes keep writing: the check and the read in one snapshot, which costs a
        // transaction of its own but never fails for their commits.
        var items: [StoredItem] = []
        try readSnapshot { () throws(SecureStoreError) in
            try confirmCurrent(keys: keys)
            items = try findOnce(query, limit: limit, returning: parts, keys: keys, visited: visited).items
            // A backend may end a transaction itself after a failure inside it that the find got past
            // (SQLite, after a damaged page): what was read after that was not one snapshot.
            guard storage.isInTransaction else { throw Self.snapshotLost }
        }
        return items
    }

    /// How many times a find checks the rows and reads again, each cheap, before it reads in the same
    /// snapshot as its check.
    static let checkedReadAttempts = 2

    /// One pass of ``find(_:limit:returning:visited:)``: every answer but "found" checked as it needs;
    /// with the items found, the change counter as of the read that found them, when the backend knows
    /// it without a statement (``ItemStorage/changeCounterOfLastRead()``), taken before any later check
    /// reads the store again.
    private func findOnce(
        _ query: ItemAttributes, limit: MatchLimit, returning parts: ItemParts, keys: ItemKeys, visited: (Int) -> Void
    ) throws(SecureStoreError) -> (items: [StoredItem], version: Int64?) {
        // Inside a write transaction, a read that the transaction may act on holds its groups' digests
        // first (as SQLite's `BEGIN IMMEDIATE` holds the store), so that no other writer of those
        // groups changes what it read before it commits.
        if transactionDepth > 0 { try lockDigests(for: query) }
        var results: [StoredItem] = []
        let wantsAttributes = parts.contains(.attributes)
        let wantsData = parts.contains(.data)
        var dataDamage: SecureStoreError?
        // A find that asks for neither part still opens each match's attributes: a "found" is never
        // answered from cells alone, which an edited index entry (SQLite reads a lookup's indexed cells
        // from the index) or an edited row could make another item's.
        let damage = try forEachMatch(
            query, keys: keys, decryptAttributes: wantsAttributes || !wantsData, decryptsData: wantsData,
            copying: wantsData ? .data : []
        ) {
            (row, attributes, opened) throws(SecureStoreError) in
            var data: SecretBytes?
            if wantsData {
                do throws(SecureStoreError) {
                    data = if let opened { opened } else { try openData(row, keys: keys) }
                } catch .integrityFailure(let reason) {
                    dataDamage = dataDamage ?? .integrityFailure(reason)
                    return true  // This item is lost; another may still match.
                }
            }
            // Attributes decrypted only to check the match are not part of the answer unless asked for.
            results.append(
                StoredItem(itemClass: row.itemClass, attributes: wantsAttributes ? attributes : nil, data: data))
            visited(results.count)
            return limit == .all
        }
        let version = transactionDepth == 0 ? storage.changeCounterOfLastRead() : nil
        // Damage met on the way: an item found for a match-one query authenticated on its own, and is
        // the answer; a list, or "none", may be missing the items lost, so it is damage.
        if let damage = damage ?? dataDamage {
            guard limit == .one, !results.isEmpty else { throw damage }
            return (results, version)
        }
        // "None" and "all of them" are claims about rows not read: they need the rows to be intact. A
        // lookup by unique key that found its item in every group it searched read every row there can
        // be (a unique key names at most one item per group): its answer is whole without that check, so
        // damage elsewhere in the store does not cost it.
        // (Only a list is asked whether it is whole: a match-one answer that found its item needs nothing.)
        if results.isEmpty {
            try confirmComplete(query, keys: keys, found: 0)
        } else if limit == .all {
            let searched = try resolveGroupsForRead(query.accessGroup).count
            let whole = QueryPlan(query).byUnique && results.count == searched
            if !whole { try confirmComplete(query, keys: keys, found: results.count) }
        }
        guard !results.isEmpty else { throw .itemNotFound }
        return (results, version)
    }
}
