package import Data

/// The rows digest: read at the start of each write transaction (per group: before the transaction
/// touches the group's rows), checked against the rows when another connection changed them, updated
/// with each row inserted, moved or deleted, and written back at commit (see ``RowsDigest``).
extension StoreEngine {
    /// Starts the write transaction's digests. With one digest for the store, reads it and checks the
    /// rows against it unless they were checked since the last change by another connection: a write
    /// never builds on damage. Per-group digests are read by ``lockDigests(_:)``.
    /// (``write(_:)`` leaves no digest pending after a transaction, so there is nothing to clear here.)
    func beginDigest() throws(SecureStoreError) {
        assert(pendingDigests.whole == nil && pendingDigests.groups.isEmpty && changedDigests.whole == nil)
        guard !storage.digestPerGroup, let keys, let stored = try loadDigest(keys: keys) else { return }
        try checkRowsIfChanged(Self.wholeStore, against: stored, keys: keys)
        pendingDigests[Self.wholeStore] = stored
    }

    /// Writes back the digests the transaction changed.
    func finishDigest() throws(SecureStoreError) {
        guard let keys else {
            // A digest changed without keys cannot be; if it were, the rows must not commit without it.
            if changedDigests.whole != nil || !changedDigests.groups.isEmpty { throw .locked }
            return
        }
        if changedDigests.whole != nil, let digest = pendingDigests.whole {
            try storage.storeRowsDigest(try sealDigest(digest, scope: Self.wholeStore, keys: keys))
        }
        for scope in changedDigests.groups.keys {
            guard let digest = pendingDigests[scope] else { continue }
            try storage.storeGroupDigest(scope, try sealDigest(digest, scope: scope, keys: keys), created: false)
        }
        changedDigests.removeAll()
    }

    func digestInsert(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) {
        let scope = try digestScope(of: row)
        guard pendingDigests.contains(scope) else { return }
        let hash = try rowHash(row, keys: keys)
        _ = pendingDigests.modify(scope) { $0.insert(hash) }
        changedDigests[scope] = ()
    }

    func digestRemove(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) {
        let scope = try digestScope(of: row)
        guard pendingDigests.contains(scope) else { return }
        let hash = try rowHash(row, keys: keys)
        _ = pendingDigests.modify(scope) { $0.remove(hash) }
        changedDigests[scope] = ()
    }

    /// The digest a row counts in: the store's, or its group's (locked now if the operation did not
    /// lock it before reading, which every operation of the store's does).
    private func digestScope(of row: ItemRow) throws(SecureStoreError) -> BlindIndex {
        guard storage.digestPerGroup else { return Self.wholeStore }
        if !pendingDigests.contains(row.group) { try lockDigests([row.group]) }
        return row.group
    }

    private func rowHash(_ row: ItemRow, keys: ItemKeys) throws(SecureStoreError) -> RowHash {
        try RowsDigest.rowHash(row, keys: keys)
    }

    /// Whether this store's digest counts its rows' ciphertexts (format 4 or later, rows without a
    /// version): every row a write removes from the digest must then have been read with them, and a
    /// change of ciphertexts alone changes the digest.
    func digestsCiphertexts(_ keys: ItemKeys) -> Bool {
        keys.digestsCiphertexts && !storage.rowVersions
    }

    /// The stored store-wide rows digest, or `nil` for a store of format 1 made before it existed
    /// (until ``ensureRowsDigest()``) or one that keeps a digest per group.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` when a store of format 2 or later, every one
    ///   of which was made with its digest, has none: its table was dropped, which would otherwise take
    ///   every check of the rows away (and a new digest would take whatever rows are left as sound).
    func loadDigest(keys: ItemKeys) throws(SecureStoreError) -> RowsDigest? {
        guard !storage.digestPerGroup else { return nil }
        // The anchor is read before the digest: in a read snapshot, before the snapshot began.
        let floor = try anchorFloorForRead()
        guard let stored = try storage.loadRowsDigest() else {
            if header.version >= 2 { throw Self.missingDigest }
            return nil
        }
        let digest = try openDigest(stored, scope: Self.wholeStore, keys: keys)
        if let floor { try checkAnchor(floor) }
        return digest
    }

    /// The integrity failure for a store made with a rows digest that no longer has one.
    static let missingDigest = SecureStoreError.integrityFailure(
        "the rows digest is missing (its table was removed outside the store)")

    /// The digest of `scope` (the store's, or a group's) kept as `stored`. In a store that seals its
    /// digests, opening one costs an AEAD open; the digest this handle last wrote or opened is taken
    /// from memory when the stored bytes are the same.
    func openDigest(_ stored: [UInt8], scope: BlindIndex, keys: ItemKeys) throws(SecureStoreError) -> RowsDigest {
        if let opened = openedDigests[scope], opened.stored == stored { return opened.digest }
        let (digest, generation) = try RowsDigest.opened(stored, role: Self.role(of: scope), keys: keys)
        openedDigests[scope] = (stored, digest, generation)
        return digest
    }

    /// The stored form of `digest` for `scope`, remembered for ``openDigest(_:scope:keys:)``. The
    /// store's own digest is sealed with the next write generation after the one last opened (where
    /// the format carries one), which the anchor is raised to when the transaction commits.
    func sealDigest(_ digest: RowsDigest, scope: BlindIndex, keys: ItemKeys) throws(SecureStoreError) -> [UInt8] {
        let role = Self.role(of: scope)
        var generation: UInt64 = 0
        if RowsDigest.carriesGeneration(role, keys: keys) {
            generation = (openedDigests[scope]?.generation ?? 0) + 1
            sealedGeneration = generation
        }
        let stored = try digest.stored(role, keys: keys, generation: generation)
        openedDigests[scope] = (stored, digest, generation)
        return stored
    }

    /// The role a scope's digest is sealed in: the store's, or its group's.
    private static func role(of scope: BlindIndex) -> DigestRole {
        DigestScoped<Void>.isWhole(scope) ? .store : .group(scope)
    }

    /// Checks the rows of `scope` against `stored` unless nothing changed since they last matched.
    func checkRowsIfChanged(_ scope: BlindIndex, against stored: RowsDigest, keys: ItemKeys) throws(SecureStoreError) {
        let version = try scope == Self.wholeStore ? storage.changeCounter() : storage.groupChangeCounter(scope)
        if let checked = digestChecked[scope], checked.version == version {
            if let damage = checked.damage { throw damage }
            return
        }
        do throws(SecureStoreError) {
            guard try computeDigest(scope, keys: keys) == stored else { throw RowsDigest.mismatch }
            digestChecked[scope] = (version, nil)
        } catch .integrityFailure(let reason) {
            // A row that does not match, or a page that fails its checksum: the same answer until the
            // data changes. Other failures (busy, I/O) are not remembered: the next read tries again.
            digestChecked[scope] = (version, .integrityFailure(reason))
            throw .integrityFailure(reason)
        }
    }

    /// The digest of the rows of `scope` as they are, from a pass over their index cells (and, where
    /// the digest counts them, their ciphertexts).
    func computeDigest(_ scope: BlindIndex, keys: ItemKeys) throws(SecureStoreError) -> RowsDigest {
        var digest = RowsDigest.empty
        if digestsCiphertexts(keys) {
            // A row the backend cannot read whole (a cell of the wrong type or size) is one whose hash
            // cannot be computed, as below.
            let (rows, unreadable) = try storage.rows(.all, columns: [.attributes, .data])
            guard unreadable == 0 else { throw RowsDigest.mismatch }
            for row in rows where scope == Self.wholeStore || row.group == scope {
                digest.insert(try RowsDigest.rowHash(row, keys: keys))
            }
            return digest
        }
        let visit = { (id: Int64, classCode: Int64?, cells: IndexCells?, version: Int64?) throws(SecureStoreError) in
            // Cells of another type than the store writes would hash like the right ones but not match
            // in a lookup (a class stored as the blob "1…" is not the integer 1): damage.
            guard let classCode, let cells else { throw RowsDigest.mismatch }
            digest.insert(
                try RowsDigest.rowHash(
                    id: id, classCode: classCode, group: cells.group, unique: cells.unique, primary: cells.primary,
                    version: version, keys: keys))
        }
        if scope == Self.wholeStore {
            try storage.forEachVersionedIndexEntry(visit)
        } else {
            try storage.forEachVersionedIndexEntry(inGroup: scope, visit)
        }
        return digest
    }

    /// Before answering "none" (or "all of them"), checks in one snapshot that the rows match their
    /// digest (per group: the digests of the groups asked about) and, for a lookup through an index,
    /// that the backend's index did not leave a row out: damage is an integrity failure, never a
    /// missing item.
    func confirmComplete(_ query: ItemAttributes, keys: ItemKeys, found: Int) throws(SecureStoreError) {
        try readSnapshot { () throws(SecureStoreError) in
            let positions = try resolveGroupsForRead(query.accessGroup)
            if storage.digestPerGroup {
                for position in positions { try confirmGroup(groupIndexes[position], keys: keys) }
            } else {
                let pending = pendingDigests[Self.wholeStore]
                if let stored = try pending == nil ? loadDigest(keys: keys) : pending {
                    try checkRowsIfChanged(Self.wholeStore, against: stored, keys: keys)
                }
            }
            guard found == 0 else { return }
            let plan = QueryPlan(query)
            guard plan.byUnique || plan.byPrimary else { return }  // Other reads scan the table itself.
            let itemClass = query.itemClass
            for position in positions {
                let group = groupIndexes[position]
                let primary = try keys.primaryIndex(itemClass, value: query[itemClass.primaryAttribute], group: group)
                let selection: RowSelection =
                    plan.byUnique
                    ? .unique(primary: primary, unique: try keys.uniqueIndex(query, group: group)) : .primary(primary)
                let throughIndex = try storage.count(selection, bypassingIndex: false)
                let throughTable = try storage.count(selection, bypassingIndex: true)
                guard throughIndex == throughTable else {
                    throw .integrityFailure("an index of the database is damaged")
                }
            }
        }
    }

    /// Whether the items a find read at change counter `version` (``ItemStorage/changeCounterOfLastRead()``,
    /// `nil` when not known) are known current without a check: where the digest counts ciphertexts,
    /// an older ciphertext of a row put back (an old refresh token) decrypts as the row it was, and only
    /// the digest tells it from the current one. Known when the rows last matched at that very
    /// counter; inside a transaction, the write or snapshot that opened it checked them. Per-group
    /// digests (PostgreSQL, whose rows carry versions) are not consulted by a find: that would cost
    /// every read a round trip.
    func isCurrent(_ version: Int64?, keys: ItemKeys) -> Bool {
        guard digestsCiphertexts(keys), !storage.digestPerGroup, transactionDepth == 0 else { return true }
        guard let version, let checked = digestChecked[Self.wholeStore], checked.damage == nil else { return false }
        return checked.version == version
    }

    /// Checks, in the open read snapshot, that the rows match the store's digest (``isCurrent(_:keys:)``).
    func confirmCurrent(keys: ItemKeys) throws(SecureStoreError) {
        if let stored = try loadDigest(keys: keys) {
            try checkRowsIfChanged(Self.wholeStore, against: stored, keys: keys)
        }
    }

    /// Gives a store made before the rows digest one (of format 1: every later store was made with
    /// it), taking its rows as they are (trust on first use).
    /// A digest that cannot be read (its page fails its checksum, its row is malformed) is left for the
    /// reads and writes that need it to report: opening still succeeds, so that lookups by unique key,
    /// which do not need it, still answer.
    package func ensureRowsDigest() throws(SecureStoreError) {
        guard !storage.digestPerGroup, let keys else { return }
        let stored: RowsDigest?
        do {
            stored = try loadDigest(keys: keys)
        } catch .integrityFailure {
            return
        }
        guard stored == nil else { return }
        try writeTyped { () throws(SecureStoreError) in
            guard try storage.loadRowsDigest() == nil else { return }
            try storage.createRowsDigest(try computeDigest(Self.wholeStore, keys: keys).stored(.store, keys: keys))
        }
    }

    /// Whether the rows match their digest (or digests), for ``verify()``.
    func rowsMatchDigest(keys: ItemKeys) throws(SecureStoreError) -> Bool {
        do {
            if storage.digestPerGroup { return try groupsMatchDigests(keys: keys) }
            guard let stored = try loadDigest(keys: keys) else { return true }
            return try computeDigest(Self.wholeStore, keys: keys) == stored
        } catch .integrityFailure(let reason) where !RollbackAnchorFile.isAnchorFailure(reason) {
            return false  // A cell of the wrong type or size, a malformed digest: the rows cannot match.
        }
    }
}
