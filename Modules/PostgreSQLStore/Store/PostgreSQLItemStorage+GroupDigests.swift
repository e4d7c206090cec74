import Data
import StoreCore

/// The rows digests, one row per access group in `group_digests`, and the registry of groups in
/// `group_registry`: the port's group-digest operations.
extension PostgreSQLItemStorage {
    /// One digest per access group.
    var digestPerGroup: Bool { true }

    /// Locks the digest rows of `groups` and reads them, with the transaction's `BEGIN` (if still
    /// waiting), its own transaction id and a fresh value of the store's sequence (the version of the
    /// rows it writes) in the same round trip; or, for a write of the store's own of a group this
    /// handle wrote last, assumes the lock (see ``assumeLock(_:)``) and checks it with the next statement.
    func lockGroupDigests(_ groups: [BlindIndex]) throws(SecureStoreError) -> [BlindIndex: [UInt8]] {
        if let assumed = assumeLock(groups) { return assumed }
        return try selectGroupDigests(groups, locking: true)
    }

    func loadGroupDigests(_ groups: [BlindIndex]) throws(SecureStoreError) -> [BlindIndex: [UInt8]] {
        try selectGroupDigests(groups, locking: false)
    }

    private func selectGroupDigests(_ groups: [BlindIndex], locking: Bool) throws(SecureStoreError)
        -> [BlindIndex: [UInt8]]
    {
        guard !groups.isEmpty else { return [:] }
        let list = groups.map { Self.literal($0.bytes) }.joined(separator: ", ")
        let extra =
            locking
            ? ", (pg_current_xact_id()::text::bigint % 4294967296)::text, (SELECT nextval('\(schema).row_ids'))::text"
            : ""
        // Rows are locked in the order of their groups, so two writers of the same groups never
        // deadlock on them.
        let result = try batch(
            "SELECT grp, value, version::text, xmin::text\(extra) FROM \(schema).group_digests WHERE grp IN (\(list)) "
                + (locking ? "ORDER BY grp FOR UPDATE" : ""))
        var found: [BlindIndex: [UInt8]] = [:]
        for row in 0..<result.rowCount {
            let cells = try read { () throws(PostgreSQLError) in
                try (0..<(locking ? 6 : 4)).map { column throws(PostgreSQLError) in try result.serverText(row, column) }
            }
            guard let groupBytes = Self.bytea(cells[0]), let value = Self.bytea(cells[1]), let version = Int64(cells[2])
            else { throw .integrityFailure("a rows digest row is malformed") }
            guard let group = groups.first(where: { Sodium.constantTimeEquals($0.bytes, groupBytes) }) else { continue }
            found[group] = value
            transactionStates[group] = RowState(version: version, xmin: cells[3])
            if locking {
                ownTransaction = cells[4]
                if writeVersion == nil { writeVersion = Int64(cells[5]) }
            }
        }
        return found
    }

    func allGroupDigests() throws(SecureStoreError) -> [(group: BlindIndex?, encoded: [UInt8])] {
        let result = try run("SELECT grp, value FROM \(schema).group_digests")
        return try read { () throws(PostgreSQLError) in
            try (0..<result.rowCount).map { row throws(PostgreSQLError) -> (group: BlindIndex?, encoded: [UInt8]) in
                let bytes = try result.bytes(row, 0)
                let group = bytes.withUnsafeBytes { BlindIndex(copying: $0, expectedCount: ItemKeys.indexBytes) }
                return (group, try result.bytes(row, 1))
            }
        }
    }

    /// Deletes every group's digest row (a rotation of the master key, which writes them again under
    /// the groups' new indexes), and forgets what this handle knew of them.
    func deleteGroupDigests() throws(SecureStoreError) {
        _ = try run("DELETE FROM \(schema).group_digests")
        transactionStates = [:]
        pendingGroupDigests = [:]
        knownStates = [:]
        ownDigests = [:]
        rowCacheInvalid = true
    }

    /// A changed digest waits for the commit; a new group's row is made at once (and stays locked).
    func storeGroupDigest(_ group: BlindIndex, _ encoded: [UInt8], created: Bool) throws(SecureStoreError) {
        guard created else {
            pendingGroupDigests[group] = encoded
            return
        }
        let result = try run(
            "INSERT INTO \(schema).group_digests (grp, value) VALUES ($1, $2) "
                + "RETURNING (pg_current_xact_id()::text::bigint % 4294967296)::text, nextval('\(schema).row_ids')",
            [.bytes(group.bytes), .bytes(encoded)])
        let (own, next) = try read { () throws(PostgreSQLError) in (try result.string(0, 0), try result.int64(0, 1)) }
        ownTransaction = own
        if writeVersion == nil { writeVersion = next }
        transactionStates[group] = RowState(version: 0, xmin: own)
    }

    func loadGroupRegistry(locking: Bool) throws(SecureStoreError) -> [UInt8]? {
        let result = try run(
            "SELECT value FROM \(schema).group_registry WHERE id = 1" + (locking ? " FOR UPDATE" : ""))
        guard result.rowCount == 1 else { return nil }
        return try read { () throws(PostgreSQLError) in try result.bytes(0, 0) }
    }

    func storeGroupRegistry(_ encoded: [UInt8]) throws(SecureStoreError) {
        try run("UPDATE \(schema).group_registry SET value = $1 WHERE id = 1", [.bytes(encoded)])
    }

    /// The group's digest row's counter and `xmin`, as the open transaction read them or, outside
    /// one, as they are; a counter that moves only when they differ from what this handle last saw.
    func groupChangeCounter(_ group: BlindIndex) throws(SecureStoreError) -> Int64 {
        let state: RowState
        if let read = transactionStates[group] {
            state = read
        } else {
            let result = try run(
                "SELECT version, xmin::text FROM \(schema).group_digests WHERE grp = $1", [.bytes(group.bytes)])
            guard result.rowCount == 1 else { throw .integrityFailure("the rows digest of an access group is missing") }
            state = try read { () throws(PostgreSQLError) in
                RowState(version: try result.int64(0, 0), xmin: try result.string(0, 1))
            }
        }
        if state != knownStates[group] {
            // Another connection changed the group's rows (or this handle had not seen it): its cached
            // rows may be out of date.
            rowCache[group] = nil
            knownStates[group] = state
            reportedCounters[group, default: 0] &+= 1
        }
        return reportedCounters[group, default: 0]
    }

    func forEachVersionedIndexEntry(
        inGroup group: BlindIndex,
        _ visit: (_ id: Int64, _ classCode: Int64?, _ cells: IndexCells?, _ version: Int64?) throws(SecureStoreError)
            -> Void
    ) throws(SecureStoreError) {
        try visitIndexEntries(
            try run("SELECT id, class, grp, uniq, prim, ver FROM \(schema).items WHERE grp = $1", [.bytes(group.bytes)]),
            visit)
    }

    /// New rows take their ids from the store's sequence: writers of different groups insert at once.
    var assignsRowIDs: Bool { true }

    /// The write's version (a fresh sequence value) for its first new row, then further values.
    func newRowID() throws(SecureStoreError) -> Int64 {
        if let writeVersion, !writeVersionUsedAsID {
            writeVersionUsedAsID = true
            return writeVersion
        }
        let result = try run("SELECT nextval('\(schema).row_ids')")
        return try read { () throws(PostgreSQLError) in try result.int64(0, 0) }
    }

    /// Rows carry a version (the `ver` column).
    var rowVersions: Bool { true }

    /// The version taken from the store's sequence when the write transaction locked its first group,
    /// or with this handle's previous commit (an assumed lock): the sequence never gives a value twice,
    /// and each value serves one write transaction. (Every operation locks its groups before it writes
    /// a row; should one not have, a fresh value is taken now.)
    func newRowVersion() -> Int64 {
        if let writeVersion { return writeVersion }
        let fresh = try? run("SELECT nextval('\(schema).row_ids')").int64(0, 0)
        writeVersion = fresh
        writeVersionUsedAsID = true  // Never also an id: the id would be taken twice.
        return fresh ?? Int64.max
    }

    // MARK: The store-wide digest, which this backend does not keep

    func loadRowsDigest() throws(SecureStoreError) -> [UInt8]? { nil }

    func storeRowsDigest(_ encoded: [UInt8]) throws(SecureStoreError) {
        throw .storage(.store("the store keeps a rows digest per access group", kind: .misuse))
    }

    func createRowsDigest(_ encoded: [UInt8]) throws(SecureStoreError) {
        throw .storage(.store("the store keeps a rows digest per access group", kind: .misuse))
    }
}
