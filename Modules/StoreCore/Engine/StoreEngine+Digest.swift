package import Data

/// The rows digest: read at the start of each write transaction, checked against the rows when
/// another connection changed them, updated with each row inserted, moved or deleted, and written
/// back at commit (see ``RowsDigest``).
extension StoreEngine {
    /// Reads the rows digest at the start of a write transaction, and checks the rows against it unless
    /// they were checked since the last change by another connection: a write never builds on damage.
    func beginDigest() throws(SecureStoreError) {
        digestChanged = false
        guard let keys, let stored = try loadDigest() else {
            pendingDigest = nil
            return
        }
        try checkRowsIfChanged(against: stored, keys: keys)
        pendingDigest = stored
    }

    /// Writes the rows digest back when the transaction changed a row.
    func finishDigest() throws(SecureStoreError) {
        guard digestChanged, let pendingDigest else { return }
        try storage.storeRowsDigest(pendingDigest.encoded)
        digestChanged = false
    }

    func digestInsert(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) {
        guard pendingDigest != nil else { return }
        pendingDigest!.insert(try rowHash(row, keys: keys))
        digestChanged = true
    }

    func digestRemove(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) {
        guard pendingDigest != nil else { return }
        pendingDigest!.remove(try rowHash(row, keys: keys))
        digestChanged = true
    }

    private func rowHash(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) -> [UInt8] {
        try RowsDigest.rowHash(
            id: row.id, classCode: Int64(row.itemClass.rawValue), group: row.group, unique: row.unique,
            primary: row.primary, version: row.version, keys: keys)
    }

    /// The stored rows digest, or `nil` for a store made before it existed (until ``ensureRowsDigest()``).
    func loadDigest() throws(SecureStoreError) -> RowsDigest? {
        guard let encoded = try storage.loadRowsDigest() else { return nil }
        guard let digest = RowsDigest(encoded: encoded) else {
            throw .integrityFailure("the rows digest is missing or malformed")
        }
        return digest
    }

    /// Checks the rows against `stored` unless nothing changed since they last matched.
    func checkRowsIfChanged(against stored: RowsDigest, keys: ItemKeys) throws(SecureStoreError) {
        let version = try storage.changeCounter()
        if let digestChecked, digestChecked.version == version {
            if let damage = digestChecked.damage { throw damage }
            return
        }
        do throws(SecureStoreError) {
            guard try computeDigest(keys: keys) == stored else { throw RowsDigest.mismatch }
            digestChecked = (version, nil)
        } catch .integrityFailure(let reason) {
            // A row that does not match, or a page that fails its checksum: the same answer until the
            // data changes. Other failures (busy, I/O) are not remembered: the next read tries again.
            digestChecked = (version, .integrityFailure(reason))
            throw .integrityFailure(reason)
        }
    }

    /// The digest of the rows as they are, from a pass over every row's index cells.
    func computeDigest(keys: ItemKeys) throws(SecureStoreError) -> RowsDigest {
        var digest = RowsDigest.empty
        try storage.forEachVersionedIndexEntry { id, classCode, cells, version throws(SecureStoreError) in
            // Cells of another type than the store writes would hash like the right ones but not match
            // in a lookup (a class stored as the blob "1…" is not the integer 1): damage.
            guard let classCode, let cells else { throw RowsDigest.mismatch }
            digest.insert(
                try RowsDigest.rowHash(
                    id: id, classCode: classCode, group: cells.group, unique: cells.unique, primary: cells.primary,
                    version: version, keys: keys))
        }
        return digest
    }

    /// Before answering "none" (or "all of them"), checks in one snapshot that the rows match their
    /// digest and, for a lookup through an index, that the backend's index did not leave a row out:
    /// damage is an integrity failure, never a missing item.
    func confirmComplete(_ query: ItemAttributes, keys: ItemKeys, found: Int) throws(SecureStoreError) {
        try readSnapshot { () throws(SecureStoreError) in
            if let stored = try loadDigest() { try checkRowsIfChanged(against: stored, keys: keys) }
            guard found == 0 else { return }
            let plan = QueryPlan(query)
            guard plan.byUnique || plan.byPrimary else { return }  // Other reads scan the table itself.
            let itemClass = query.itemClass
            for position in try resolveGroupsForRead(query.accessGroup) {
                let group = groupIndexes[position]
                let primary = try keys.primaryIndex(itemClass, value: query[itemClass.primaryAttribute], group: group)
                let selection: RowSelection =
                    plan.byUnique
                    ? .unique(primary: primary, unique: try keys.uniqueIndex(query, group: group)) : .primary(primary)
                let throughIndex = try storage.count(selection, bypassingIndex: false)
                let throughTable = try storage.count(selection, bypassingIndex: true)
                guard throughIndex == throughTable else {
                    throw .integrityFailure("an index of the database is damaged (run `hardtack keychain verify`)")
                }
            }
        }
    }

    /// Gives a store made before the rows digest one, taking its rows as they are (trust on first use).
    /// A digest that cannot be read (its page fails its checksum, its row is malformed) is left for the
    /// reads and writes that need it to report: opening still succeeds, so that lookups by unique key,
    /// which do not need it, still answer.
    package func ensureRowsDigest() throws(SecureStoreError) {
        let stored: RowsDigest?
        do {
            stored = try loadDigest()
        } catch .integrityFailure {
            return
        }
        guard let keys, stored == nil else { return }
        try writeTyped { () throws(SecureStoreError) in
            guard try storage.loadRowsDigest() == nil else { return }
            try storage.createRowsDigest(try computeDigest(keys: keys).encoded)
        }
    }

    /// Whether the rows match their digest, for ``verify()``.
    func rowsMatchDigest(keys: ItemKeys) throws(SecureStoreError) -> Bool {
        guard let stored = try loadDigest() else { return true }
        do {
            return try computeDigest(keys: keys) == stored
        } catch .integrityFailure {
            return false  // A cell of the wrong type or size: the rows cannot match.
        }
    }
}
