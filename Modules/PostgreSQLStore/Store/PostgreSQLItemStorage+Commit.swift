import Data
import StoreCore

/// Commits, and the lock a write of the store's own may assume.
///
/// A handle that wrote a group last knows its digest row as its commit left it (the counter, the
/// `xmin` of its own transaction, the value it stored). Its next write of that group, while nothing
/// of the transaction was sent yet, is answered from that without a round trip, and the lock of the
/// digest row travels with the transaction's first statement, which checks that the row is still in
/// that state: with a read, as a `SELECT … FOR UPDATE` whose answer is compared before anything more
/// is sent; with a write of one row (a put, or an update or delete of a row this handle left, see
/// ``cachedRow(_:)``), as one statement that locks the digest row only if it is in that state, writes
/// the row only if it locked it, and stores the new digest only if it wrote the row, sent with `BEGIN`
/// and `COMMIT` in one round trip. When the row moved (another connection wrote the group), nothing of the transaction is
/// committed and the engine runs the operation again at once with a real lock, which then checks the
/// group's rows as before. Writers of a group still serialize on its digest row: every variant locks it.
extension PostgreSQLItemStorage {
    /// Locks a group's digest row, reading its counter, `xmin` and the transaction's id.
    var lockDigestSQL: String {
        "SELECT version, xmin::text, (pg_current_xact_id()::text::bigint % 4294967296)::text FROM \(schema).group_digests "
            + "WHERE grp = $1 FOR UPDATE"
    }

    /// The failure of a transaction whose assumed lock did not hold; the engine runs the operation again.
    static let assumedLockFailed = SecureStoreError.storage(
        StorageFailure(
            backend: "PostgreSQL", kind: .conflict,
            message: "another connection wrote an access group while this write assumed it had not; run it again"))

    /// The digest of one group, from what this handle's last commit left, when the open transaction is
    /// a write of the store's own that has sent nothing yet, this handle wrote the group last, and a
    /// version was taken with that commit; `nil` otherwise (the lock then goes to the server).
    func assumeLock(_ groups: [BlindIndex]) -> [BlindIndex: [UInt8]]? {
        guard speculationAllowed, writing, pendingBegin != nil, speculation == nil, writeVersion == nil,
            groups.count == 1, let version = reservedVersion, let own = ownDigests[groups[0]],
            knownStates[groups[0]] == own.state
        else { return nil }
        reservedVersion = nil
        writeVersion = version
        speculation = (groups[0], own.state)
        transactionStates[groups[0]] = own.state
        return [groups[0]: own.value]
    }

    /// Sends the assumed lock on its own (before a statement that cannot carry it).
    func checkAssumedLock() throws(SecureStoreError) {
        _ = try runWithAssumedLock(nil)
    }

    /// Sends the transaction's `BEGIN`, the assumed lock, the queued writes and `statement` in one
    /// round trip, and returns `statement`'s result. Nothing was under way before, so a connection found
    /// lost is opened again and the whole sent again.
    /// - Throws: ``assumedLockFailed`` when the digest row moved (the transaction is then rolled back).
    @discardableResult
    func runWithAssumedLock(
        _ statement: PostgreSQLConnection.PipelinedStatement?
    ) throws(SecureStoreError)
        -> PostgreSQLResult?
    {
        guard let (group, state) = speculation, let begin = pendingBegin else {
            throw .storage(.store("no assumed lock is waiting", kind: .misuse))
        }
        speculation = nil
        pendingBegin = nil
        transactionOpen = true
        var batch = [PostgreSQLConnection.PipelinedStatement(begin), .init(lockDigestSQL, [.bytes(group.bytes)])]
        batch += deferredWrites
        deferredWrites = []
        deferredConditionals = []
        if let statement { batch.append(statement) }
        let results: [PostgreSQLResult]
        do {
            results = try connection.pipeline(batch)
        } catch  where error.isConnectionLost {
            try reconnect()
            do { results = try connection.pipeline(batch) } catch { throw PostgreSQLFailure.storeError(error) }
        } catch {
            throw PostgreSQLFailure.storeError(error)
        }
        let lock = results[1]
        let found = try read { () throws(PostgreSQLError) -> (RowState, String)? in
            guard lock.rowCount == 1 else { return nil }
            return (RowState(version: try lock.int64(0, 0), xmin: try lock.string(0, 1)), try lock.string(0, 2))
        }
        guard let found, found.0 == state else { throw assumptionFailed(group) }
        ownTransaction = found.1
        return statement == nil ? nil : results[batch.count - 1]
    }

    private func assumptionFailed(_ group: BlindIndex) -> SecureStoreError {
        ownDigests[group] = nil
        rowCache[group] = nil
        speculationFailed = true
        return Self.assumedLockFailed
    }

    /// Whether the last write failed only because its assumed lock did not hold; reading it clears it.
    func takeFailedAssumption() -> Bool {
        defer { speculationFailed = false }
        return speculationFailed
    }

    /// Commits: the queued writes, the changed group digests, a value of the sequence for the next
    /// write and the `COMMIT`, in one round trip. Each stored digest row gets the counter one past the
    /// one read under its lock, so that this handle knows the row's state after its own commit (its
    /// counter and this transaction's `xmin`) without reading it again.
    func commit() throws(SecureStoreError) {
        defer { endTransaction() }
        if let speculation {
            if writing, deferredWrites.count == 1, let conditional = deferredConditionals[0],
                pendingGroupDigests.count == 1, pendingGroupDigests[speculation.group] != nil
            {
                return try commitAssumed(conditional)
            }
            try checkAssumedLock()
        }
        guard pendingBegin == nil else { return }  // Nothing was sent: nothing to commit.
        var batch = deferredWrites
        deferredWrites = []
        deferredConditionals = []
        var after: [BlindIndex: RowState] = [:]
        let reserving = writing && reservedVersion == nil
        if writing {
            for (group, encoded) in pendingGroupDigests {
                let next = (transactionStates[group]?.version ?? 0) + 1
                batch.append(
                    .init(
                        "UPDATE \(schema).group_digests SET value = $1, version = $2 WHERE grp = $3",
                        [.bytes(encoded), .int64(next), .bytes(group.bytes)]))
                if let own = ownTransaction { after[group] = RowState(version: next, xmin: own) }
            }
            if reserving { batch.append(.init("SELECT nextval('\(schema).row_ids')")) }
        }
        batch.append(.init("COMMIT"))
        let results = try commitPipeline(batch)
        guard writing else { return }
        if reserving { reservedVersion = try? results[batch.count - 2].int64(0, 0) }
        // A group whose rows only this handle changed since the core last looked keeps its counter.
        // A locked group whose digest did not change had no row changed (every change moves the digest).
        var known: Set<BlindIndex> = []
        for (group, start) in transactionStates where knownStates[group] == start {
            knownStates[group] = after[group] ?? start
            if let state = after[group], let value = pendingGroupDigests[group] {
                ownDigests[group] = (state, value)
                known.insert(group)
            }
        }
        applyRowChanges(knownGroups: known)
    }

    /// A write of one row under an assumed lock: `BEGIN`; in one statement, the digest row locked only
    /// if it is as assumed, the row's write (`conditional`) only if it was, the new digest only if the
    /// row was written; the digest row's new state and a sequence value; `COMMIT`. All in one round
    /// trip. When the digest row had moved, nothing is written (the `COMMIT` ends an empty transaction)
    /// and the operation runs again.
    private func commitAssumed(_ conditional: String) throws(SecureStoreError) {
        guard let (group, state) = speculation, let begin = pendingBegin, let encoded = pendingGroupDigests[group],
            deferredWrites.count == 1
        else { throw .storage(.store("no assumed put is waiting", kind: .misuse)) }
        let write = deferredWrites[0]
        let next = write.parameters.count
        speculation = nil
        pendingBegin = nil
        deferredWrites = []
        deferredConditionals = []
        transactionOpen = true
        let batch: [PostgreSQLConnection.PipelinedStatement] = [
            .init(begin),
            .init(
                "WITH locked AS (SELECT 1 FROM \(schema).group_digests WHERE grp = $\(next + 2) "
                    + "AND version = $\(next + 3) AND xmin::text = $\(next + 4) FOR UPDATE), "
                    + "written AS (\(conditional) RETURNING 1), "
                    + "stored AS (UPDATE \(schema).group_digests SET value = $\(next + 1) WHERE grp = $\(next + 2) "
                    + "AND EXISTS (SELECT 1 FROM written) RETURNING 1) "
                    + "SELECT (SELECT count(*) FROM written), (SELECT count(*) FROM stored)",
                write.parameters + [.bytes(encoded), .bytes(group.bytes), .int64(state.version), .text(state.xmin)]),
            .init(
                "SELECT version, xmin::text, nextval('\(schema).row_ids') FROM \(schema).group_digests WHERE grp = $1",
                [.bytes(group.bytes)]),
            .init("COMMIT"),
        ]
        let results = try commitPipeline(batch)
        let now = try read { () throws(PostgreSQLError) -> (RowState, Int64)? in
            guard results[2].rowCount == 1 else { return nil }
            return (
                RowState(version: try results[2].int64(0, 0), xmin: try results[2].string(0, 1)),
                try results[2].int64(0, 2)
            )
        }
        reservedVersion = now?.1
        let counts = try read { () throws(PostgreSQLError) in (try results[1].int64(0, 0), try results[1].int64(0, 1)) }
        guard counts == (1, 1), let now else { throw assumptionFailed(group) }
        var known: Set<BlindIndex> = []
        if knownStates[group] == state {
            knownStates[group] = now.0
            ownDigests[group] = (now.0, encoded)
            known.insert(group)
        }
        applyRowChanges(knownGroups: known)
    }

    /// Sends a batch that ends with `COMMIT`. A `COMMIT` whose answer was lost may or may not have
    /// taken effect; one the server refused (a statement error, a cancel) certainly did not.
    private func commitPipeline(
        _ batch: [PostgreSQLConnection.PipelinedStatement]
    ) throws(SecureStoreError)
        -> [PostgreSQLResult]
    {
        do {
            return try connection.pipeline(batch)
        } catch {
            if error.isConnectionLost || error.kind == .timedOutConnectionClosed {
                throw .storage(
                    StorageFailure(
                        backend: "PostgreSQL", kind: .connectionLost,
                        message:
                            "the connection was lost while committing, so the write may or may not have been saved; "
                            + "read the item to find out",
                        detail: error.sqlState.map { "SQLSTATE \($0)" }))
            }
            throw PostgreSQLFailure.storeError(error)
        }
    }
}
