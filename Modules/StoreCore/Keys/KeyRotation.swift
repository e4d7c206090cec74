package import Data
import Domain

/// A rotation of the master key: a new random master key, every row sealed again under subkeys derived
/// from it (its indexes, its ciphertexts, the rows digests), and the new key wrapped under the key
/// source, all in one write transaction.
///
/// Unlike ``KeyHierarchy/rewrap(_:to:)``, which wraps the same master key anew, a rotation leaves an
/// older copy of the header (a backup, a synced copy, a page or log frame of the file) opening nothing
/// written from then on, and nothing it re-sealed either: the old key's rows are gone with the
/// transaction. One transaction makes it crash-safe without a state of its own: a rotation that is
/// stopped (killed, a lost connection, a full disk) commits nothing, the store keeps its old key and
/// source, and running the rotation again starts it over. It holds the store's write lock throughout,
/// so other writers wait (up to their busy timeout) while it runs. A store of format 2 or 3 leaves it
/// in the current format (``format(after:rowVersions:)``).
package enum KeyRotation {
    /// Rotates the engine's store to a new master key wrapped under `newSource` (which may be the
    /// current one); `progress` is called with (done, total) after each row is sealed again. Returns how
    /// many items were re-sealed. `stoppingAfter` (for tests) throws after that many rows, as a process
    /// killed midway would stop, before anything is committed.
    /// - Throws: ``SecureStoreError/locked`` when the store is locked; ``SecureStoreError/integrityFailure(_:)``
    ///   when a row does not authenticate or the rows do not match their digests (nothing is changed:
    ///   a damaged store is salvaged, not rotated).
    package static func rotate(
        _ engine: StoreEngine, to newSource: KeySource, progress: (Int, Int) -> Void, stoppingAfter: Int? = nil
    ) throws(SecureStoreError) -> Int {
        let oldKeys = try engine.unlockedKeys()
        let master = try SecureKey.random()
        // Wrapped before the transaction: Argon2id takes a second, and the write lock need not wait on it.
        let (header, record) = try KeyHierarchy.newRecord(
            engine, master: master, source: newSource,
            version: format(after: engine.header.version, rowVersions: engine.storage.rowVersions))
        let newKeys = try ItemKeys(master: master, storeID: header.storeID, formatVersion: header.version)
        let count: Int
        do throws(SecureStoreError) {
            count = try engine.writeOwnLock { () throws(SecureStoreError) -> Int in
                try checkRows(engine, keys: oldKeys)
                let count = try reseal(engine, from: oldKeys, to: newKeys, progress: progress, stoppingAfter: stoppingAfter)
                try storeDigests(engine, keys: newKeys)
                try engine.storage.replaceHeaderRecord(record)
                return count
            }
        } catch {
            newKeys.wipe()
            throw error
        }
        try engine.install(newKeys)
        engine.header = header
        // The old wrapped key, and the rows sealed under the old key, must not linger where the backend
        // keeps old copies (SQLite's log; PostgreSQL's dead row versions of the header).
        engine.storage.discardReplacedHeaderRecords()
        return count
    }

    /// The format a store of `version` has after a rotation: the current one for a store whose rows are
    /// joint (format 2 and later), since every row and digest is sealed again under the new key anyway
    /// (an older header grafted back, the only way back to the old format's weaker rules, opens nothing
    /// the rotation wrote); a format-1 store keeps its format (its rows have another layout: `export`
    /// and `import` move it). A store whose rows carry versions goes no further than
    /// ``StoreHeader/versionedRowsFormat`` (format 4 would change nothing there, and would lock out the
    /// instances of a shared store not yet upgraded).
    static func format(after version: UInt8, rowVersions: Bool) -> UInt8 {
        guard version >= 2 else { return version }
        return max(version, rowVersions ? StoreHeader.versionedRowsFormat : StoreHeader.currentVersion)
    }

    /// Takes every group's digest lock (one digest per group: so no writer of any group runs meanwhile)
    /// and checks every row against the digests under the old key.
    private static func checkRows(_ engine: StoreEngine, keys: ItemKeys) throws(SecureStoreError) {
        let storage = engine.storage
        if storage.digestPerGroup {
            _ = try storage.loadGroupRegistry(locking: true)
            var groups: [BlindIndex] = []
            for (group, _) in try storage.allGroupDigests() {
                guard let group else { throw StoreEngine.registryMismatch }
                groups.append(group)
            }
            _ = try storage.lockGroupDigests(groups)
        }
        guard try engine.rowsMatchDigest(keys: keys) else { throw RowsDigest.mismatch }
    }

    /// Opens every row under the old keys and writes it again under the new ones: new indexes, new
    /// ciphertexts under the new subkeys (the additional data as for any row), a new version.
    private static func reseal(
        _ engine: StoreEngine, from oldKeys: ItemKeys, to newKeys: ItemKeys, progress: (Int, Int) -> Void,
        stoppingAfter: Int?
    ) throws(SecureStoreError) -> Int {
        let storage = engine.storage
        let (rows, unreadable) = try storage.rows(.all, columns: [.attributes, .data])
        guard unreadable == 0 else {
            throw .integrityFailure("\(unreadable) item row\(unreadable == 1 ? "" : "s") cannot be read")
        }
        for (done, row) in rows.enumerated() {
            if let stoppingAfter, done == stoppingAfter {
                throw .storage(.store("the key rotation was stopped after \(done) rows", kind: .other))
            }
            let (attributes, data) = try RowOpening.both(row, keys: oldKeys)
            guard RowOpening.indexesAgree(row, with: attributes, keys: oldKeys) else {
                throw .integrityFailure("an item's indexes do not match its attributes")
            }
            let group = try newKeys.groupIndex(attributes.accessGroup ?? "")
            var sealed = try engine.indexedRow(id: row.id, attributes, group: group, keys: newKeys)
            sealed.version = storage.rowVersions ? storage.newRowVersion() : nil
            try engine.sealRow(&sealed, attributes, data: data, keys: newKeys)
            try storage.updateRow(sealed)
            progress(done + 1, rows.count)
        }
        return rows.count
    }

    /// Writes the rows digests of the re-sealed rows under the new keys: the store's, or each group's
    /// (under its new index) and the registry of groups. A group left with no rows keeps no digest row:
    /// its name is not in the store, only its old index, and a write to it makes its row again.
    private static func storeDigests(_ engine: StoreEngine, keys: ItemKeys) throws(SecureStoreError) {
        let storage = engine.storage
        if storage.digestPerGroup {
            try storage.deleteGroupDigests()
            var registry = RowsDigest.empty
            for (group, digest) in try engine.digestsOfRows(keys: keys) {
                try storage.storeGroupDigest(group, try digest.stored(.group(group), keys: keys), created: true)
                registry.insert(try RowsDigest.groupHash(group, keys: keys))
            }
            try storage.storeGroupRegistry(try registry.stored(.registry, keys: keys))
        } else if try storage.loadRowsDigest() != nil {
            // (A format-1 store made before the digest has none; its first open with a key gives it one.)
            // Sealed with the next write generation, which a rollback anchor is raised to at commit.
            let digest = try engine.computeDigest(StoreEngine.wholeStore, keys: keys)
            try storage.storeRowsDigest(try engine.sealDigest(digest, scope: StoreEngine.wholeStore, keys: keys))
        }
    }
}
