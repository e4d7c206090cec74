import Data
import StoreCore

/// Upgrades a store's tables to ``PostgreSQLSchema/currentVersion`` on first open by newer code: in
/// one transaction, under the schema-creation advisory lock (so that of several instances opening at
/// once, one upgrades and the others find it done), after the store is unlocked (the new digests are
/// keyed).
enum PostgreSQLSchemaUpgrade {
    /// Brings version-1 tables to version 2: the one store-wide rows digest becomes one per access
    /// group. The rows are first checked against the old digest under its lock (which holds off every
    /// writer of older code): damage found then stops the upgrade, so that it is never taken into the
    /// new digests as sound.
    static func run(engine: StoreEngine, storage: PostgreSQLItemStorage) throws(SecureStoreError) {
        guard let keys = engine.keys else { throw .locked }
        let schema = storage.schema
        try PostgreSQLStoreOpener.inCreationTransaction(storage) { () throws(SecureStoreError) in
            let found = try storage.run("SELECT schema_version FROM \(schema).meta WHERE id = 1")
            guard found.rowCount == 1 else { throw PostgreSQLStoreOpener.missingHeader }
            let version = try PostgreSQLStoreOpener.translated { () throws(PostgreSQLError) in try found.int32(0, 0) }
            guard version == 1 else { return }  // Another instance upgraded it while this one waited.
            let old = try storage.run(
                "SELECT value FROM \(schema).\(PostgreSQLSchema.version1DigestTable) WHERE id = 1 FOR UPDATE")
            let unreadable = SecureStoreError.integrityFailure(
                "the rows digest is missing or malformed; the store was not upgraded")
            guard old.rowCount == 1 else { throw unreadable }
            let stored = try PostgreSQLStoreOpener.translated { () throws(PostgreSQLError) in try old.bytes(0, 0) }
            // Opening a stored digest fails only as an integrity failure: malformed, or not the store's.
            guard let legacy = try? RowsDigest(stored: stored, role: .store, keys: keys) else { throw unreadable }
            let digests = try engine.digestsOfRows(keys: keys)
            var whole = RowsDigest.empty
            for digest in digests.values { whole.merge(digest) }
            guard whole == legacy else {
                throw .integrityFailure(
                    "the item rows do not match their digest (an item was removed, or had its class or indexes changed, "
                        + "outside the store), so the store was not upgraded; verify it with the "
                        + "version of Hardtack that made it")
            }
            try PostgreSQLStoreOpener.translated { () throws(PostgreSQLError) in
                try storage.connection.execute(PostgreSQLSchema.upgradeFromVersion1(schema))
            }
            var registry = RowsDigest.empty
            for (group, digest) in digests {
                try storage.run(
                    "INSERT INTO \(schema).group_digests (grp, value) VALUES ($1, $2)",
                    [.bytes(group.bytes), .bytes(try digest.stored(.group(group), keys: keys))])
                registry.insert(try RowsDigest.groupHash(group, keys: keys))
            }
            try storage.run(
                "INSERT INTO \(schema).group_registry (id, value) VALUES (1, $1)",
                [.bytes(try registry.stored(.registry, keys: keys))])
        }
    }
}
