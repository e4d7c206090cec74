package import Data
package import Domain

/// Keychain Services' operations: add, update, delete and add-or-update (find: `StoreEngine+Find.swift`).
extension StoreEngine {
    /// Adds an item. See ``SecureItemTransaction/add(_:data:)``.
    package func add(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) {
        let keys = try unlockedKeys()
        try checkWritable(attributes)
        let group = try resolveGroupForWrite(attributes.accessGroup)
        var full = attributes
        full.reserveCapacity(forAdditional: 3)
        full.setStoreManaged(.accessGroup, .string(groups[group]))
        let now = roundedNow()
        full.setStoreManaged(.creationDate, .date(now))
        full.setStoreManaged(.modificationDate, .date(now))
        // One transaction: the row and the rows digest change together. The insert usually takes the id
        // this handle expects; when the guess is stale (or there is none yet), it reads the newest id.
        do {
            try writeTyped { () throws(SecureStoreError) in
                try lockDigests([groupIndexes[group]])
                if !storage.assignsRowIDs, let guess = nextID,
                    try insert(full, data: data, group: group, keys: keys, ifNewest: guess)
                {
                    return
                }
                try insert(full, data: data, group: group, keys: keys)
            }
        } catch .duplicateItem {
            throw confirmedDuplicate(full, group: group, keys: keys)
        }
    }

    /// Updates every match. See ``SecureItemTransaction/update(_:attributes:data:)``.
    package func update(_ query: ItemAttributes, attributes changes: ItemAttributes?, data: SecretBytes?)
        throws(SecureStoreError) -> Int
    {
        let keys = try unlockedKeys()
        if let changes {
            guard changes.itemClass == query.itemClass else { throw .classMismatch(query.itemClass, changes.itemClass) }
            try checkWritable(changes)
            if let group = changes.accessGroup { _ = try resolveGroupForWrite(group) }
        }
        var matches: [(ItemRow, ItemAttributes)] = []
        do {
            return try update(query, changes: changes, data: data, keys: keys, matches: &matches)
        } catch .duplicateItem {
            // A change of indexes refused as taking another item's key: said only of a key whose row opens.
            if let changes {
                for (_, old) in matches {
                    let moved = Self.applying(changes, to: old)
                    let error = confirmedDuplicate(moved, group: try resolveGroupForWrite(moved.accessGroup), keys: keys)
                    if error != .duplicateItem { throw error }
                }
            }
            throw .duplicateItem
        }
    }

    /// ``update(_:attributes:data:)``'s write, with the matches it rewrote (or was rewriting) in `matches`.
    private func update(
        _ query: ItemAttributes, changes: ItemAttributes?, data: SecretBytes?, keys: ItemKeys,
        matches: inout [(ItemRow, ItemAttributes)]
    ) throws(SecureStoreError) -> Int {
        try writeTyped { () throws(SecureStoreError) -> Int in
            matches.removeAll()
            try lockDigests(for: query, movingTo: changes)
            if changes == nil, let data, QueryPlan(query).isExactlyUnique {
                let count = try updateData(byUnique: query, data: data, keys: keys)
                guard count > 0 else {
                    try confirmComplete(query, keys: keys, found: 0)
                    throw .itemNotFound
                }
                return count
            }
            // The old data is needed only when a row must be re-encrypted under moved indexes.
            let copying: RowColumns = data == nil ? .data : []
            let damage = try forEachMatch(query, keys: keys, decryptAttributes: true, decryptsData: false, copying: copying) {
                (row, attributes, _) throws(SecureStoreError) in
                matches.append((row, attributes!))
                return true
            }
            if let damage { throw damage }  // A match may be among the rows lost.
            guard !matches.isEmpty else {
                try confirmComplete(query, keys: keys, found: 0)
                throw .itemNotFound
            }
            for (row, old) in matches {
                try rewrite(row, old: old, changes: changes, data: data, keys: keys)
            }
            return matches.count
        }
    }

    /// Deletes every match. See ``SecureItemTransaction/delete(_:)``.
    package func delete(_ query: ItemAttributes) throws(SecureStoreError) -> Int {
        let keys = try unlockedKeys()
        let positions = try resolveGroupsForRead(query.accessGroup)
        if QueryPlan(query).isExactlyUnique {
            // Group by group, each row's own cells compared from the table (`deleteExactly`): a lookup
            // through SQLite's index reads the index's copy of them, which a damaged entry pointing at
            // another item's row would make that row's.
            if positions.count == 1 { return try deleteExactly(query, group: groupIndexes[positions.lowerBound], keys: keys) }
            return try writeTyped { () throws(SecureStoreError) -> Int in
                var deleted = 0
                for position in positions { deleted += try deleteExactly(query, group: groupIndexes[position], keys: keys) }
                return deleted
            }
        }
        return try writeTyped { () throws(SecureStoreError) -> Int in
            try lockDigests(for: query)
            var ids: [Int64] = []
            // A digest that counts ciphertexts needs each deleted row's to count it out.
            let copying: RowColumns = digestsCiphertexts(keys) ? [.attributes, .data] : []
            let damage = try forEachMatch(
                query, keys: keys, decryptAttributes: false, decryptsData: false, copying: copying
            ) {
                (row, _, _) throws(SecureStoreError) in
                ids.append(row.id)
                try digestRemove(row, keys: keys)
                return true
            }
            if let damage { throw damage }  // A match may be among the rows lost.
            if ids.isEmpty { try confirmComplete(query, keys: keys, found: 0) }
            for id in ids { try storage.deleteRow(id) }
            return ids.count
        }
    }

    /// Locks the digest of group number `group` and reads the row (its attributes) holding `attributes`'
    /// unique key there, if any: the first step of an add-or-update and of a restore. A row the lookup
    /// returns with other cells than the key's is an integrity failure (``rowsWithUniqueKey``). (On SQLite a
    /// damaged index entry pointing at another item's row comes back with the index's cells, which
    /// this cannot see; that row's ciphertexts, bound to its own cells, then fail to open.)
    func lockedRowWithUniqueKey(of attributes: ItemAttributes, group: Int, keys: ItemKeys) throws(SecureStoreError)
        -> ItemRow?
    {
        let groupIndex = groupIndexes[group]
        try lockDigests([groupIndex])
        return try rowsWithUniqueKey(of: attributes, group: groupIndex, keys: keys, columns: .attributes).first
    }

    /// Adds or updates atomically. See ``SecureItemTransaction/addOrUpdate(_:data:)``.
    package func addOrUpdate(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError)
        -> AddOrUpdateOutcome
    {
        let keys = try unlockedKeys()
        try checkWritable(attributes)
        let group = try resolveGroupForWrite(attributes.accessGroup)
        var full = attributes
        full.reserveCapacity(forAdditional: 3)
        full.setStoreManaged(.accessGroup, .string(groups[group]))
        return try writeTyped { () throws(SecureStoreError) -> AddOrUpdateOutcome in
            if let row = try lockedRowWithUniqueKey(of: full, group: group, keys: keys) {
                let old = try openAttributes(row, keys: keys)
                try rewrite(row, old: old, changes: full, data: data, keys: keys)
                return .updated
            }
            let now = roundedNow()
            full.setStoreManaged(.creationDate, .date(now))
            full.setStoreManaged(.modificationDate, .date(now))
            try insert(full, data: data, group: group, keys: keys)
            return .added
        }
    }

    /// Sets the data of the item a query names by its whole unique key (and nothing else), the commonest
    /// update (a token refreshed). Its attributes change only in their modification date, so that date
    /// is rewritten in the decrypted encoding instead of decoding and re-encoding every attribute; the
    /// indexes do not move, so only the two ciphertexts are written. Returns how many items changed.
    private func updateData(byUnique query: ItemAttributes, data: SecretBytes, keys: ItemKeys) throws(SecureStoreError)
        -> Int
    {
        let itemClass = query.itemClass
        var changed = 0
        for position in try resolveGroupsForRead(query.accessGroup) {
            let rows = try rowsWithUniqueKey(of: query, group: groupIndexes[position], keys: keys, columns: .attributes)
            for row in rows {
                guard let newRow = try resealedForNewData(row, itemClass: itemClass, data: data, keys: keys) else {
                    // Not the usual shape (no modification date): the general path decodes and checks it.
                    try rewrite(row, old: try openAttributes(row, keys: keys), changes: nil, data: data, keys: keys)
                    changed += 1
                    continue
                }
                try storage.updateCiphertexts(
                    ofRow: row.id, version: newRow.version, attributes: newRow.sealedAttributes, data: newRow.sealedData)
                if newRow.version != nil || digestsCiphertexts(keys) {
                    try digestRemove(row, keys: keys)
                    try digestInsert(newRow, keys: keys)
                }
                changed += 1
            }
        }
        return changed
    }

    /// Deletes the item a query names by its whole unique key (and nothing else) in one group, in one
    /// atomic step, so it needs no savepoint, and inside a caller's transaction a failure leaves
    /// nothing behind either. Only a row whose own cells (read from the table) are the key's and whose
    /// class and group agree is deleted; when none is, a row the index still points at was edited
    /// behind the store's back, or the index was, which is an integrity failure.
    private func deleteExactly(_ query: ItemAttributes, group: BlindIndex, keys: ItemKeys) throws(SecureStoreError) -> Int {
        let itemClass = query.itemClass
        let unique = try keys.uniqueIndex(query, group: group)
        let primary = try keys.primaryIndex(itemClass, value: query[itemClass.primaryAttribute], group: group)
        let cells = IndexCells(group: group, unique: unique, primary: primary)
        return try writeTyped { () throws(SecureStoreError) -> Int in
            try lockDigests([group])
            // Each deleted row as its digest counts it: with its ciphertexts where the digest counts them.
            let deleted =
                digestsCiphertexts(keys)
                ? try storage.deleteSealedRows(exactly: cells, itemClass: itemClass)
                : try storage.deleteVersionedRows(exactly: cells, itemClass: itemClass).map {
                    ItemRow(id: $0.id, itemClass: itemClass, cells: cells, version: $0.version)
                }
            for row in deleted { try digestRemove(row, keys: keys) }
            if !deleted.isEmpty { return deleted.count }
            // The delete compared each row's own cells; a row the index still gives for this key is one
            // whose cells are not the key's (a class or group cell edited, or the index entry pointing at
            // another row): the index and the table disagree.
            guard try fetchRows(.unique(primary: primary, unique: unique), columns: []).isEmpty else {
                throw .integrityFailure("an item's row disagrees with its unique index")
            }
            try confirmComplete(query, keys: keys, found: 0)
            return 0
        }
    }
}
