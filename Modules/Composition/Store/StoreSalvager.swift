public import Data
import Foundation
import PostgreSQLStore
import SQLiteStore
import StoreCore

/// Salvage: the items of a damaged store that still authenticate, read without changing it, then
/// written into a new store in one transaction.
public enum StoreSalvager {
    /// Reads what can be salvaged from the store `source` describes, unlocked with its key, without
    /// changing it: a file is read page by page (its log too) without SQLite, a PostgreSQL store row by row.
    /// - Throws: ``SecureStoreError/wrongKey`` when the key opens no copy of the header;
    ///   ``SecureStoreError/integrityFailure(_:)`` when no header is left; storage errors when the store
    ///   cannot be read at all.
    public static func read(_ source: StoreConfiguration) throws(SecureStoreError) -> SalvagedStore {
        if StoreConfiguration.isPostgreSQL(source.storePath) {
            return SalvagedStore(
                result: try PostgreSQLSecureItemStore.salvage(uri: source.storePath, keySource: source.key))
        }
        guard FileManager.default.fileExists(atPath: source.storePath) else {
            throw .itemNotFound
        }
        return SalvagedStore(
            result: try SQLiteSecureItemStore.salvage(at: source.storePath, keySource: source.key))
    }

    /// The counts of a store the database could not open or read through, read as salvage reads it: the items that
    /// authenticate are sound, those lost (and those the rows digest counts but left no trace) damaged.
    /// `nil` when even that cannot be read (no header left, the wrong key, no such store).
    public static func health(_ source: StoreConfiguration) -> StoreHealth? {
        guard let salvaged = try? read(source) else { return nil }
        var kinds = fileDamage(source)
        kinds.pages = StoreConfiguration.isPostgreSQL(source.storePath) ? 0 : salvaged.damagedParts
        kinds.rows = salvaged.lost.count
        kinds.rowsDigest = !salvaged.matchesDigest
        if !StoreConfiguration.isPostgreSQL(source.storePath) {
            kinds.headerProblem = SQLiteSecureItemStore.headerDamage(path: source.storePath)
        }
        kinds.header = salvaged.headerDamaged || kinds.headerProblem != nil
        // The items whose row and class are known, as a check names them.
        let damaged = salvaged.lost.filter { $0.rowID != nil && $0.itemClass != nil }
        return StoreHealth(
            soundItems: salvaged.recovered, damagedItems: max(salvaged.lostCount, salvaged.isComplete ? 0 : 1),
            databaseCheck: nil, damaged: damaged,
            kinds: kinds, countedBySalvage: true)
    }

    /// The damage to the store's file itself: an SQLite file cut short (empty, or shorter than its
    /// header says); nothing on PostgreSQL.
    public static func fileDamage(_ source: StoreConfiguration) -> StoreHealth.DamageKinds {
        var kinds = StoreHealth.DamageKinds()
        if !StoreConfiguration.isPostgreSQL(source.storePath) { kinds.cutShort = StoreFileShape.cutShort(source.storePath) }
        return kinds
    }

    /// Writes `result`'s items into the new store `target` in one transaction (all or none), with every
    /// access group the items belong to; returns how many were written.
    public static func write(_ salvaged: SalvagedStore, to target: StoreConfiguration) throws(SecureStoreError) -> Int {
        let result = salvaged.result
        var configuration = target
        var groups = target.accessGroups
        for group in Set(result.items.map { $0.attributes.accessGroup ?? "" }).sorted() where !groups.contains(group) {
            groups.append(group)
        }
        configuration.accessGroups = groups.filter { !$0.isEmpty }
        let handle = try configuration.open()
        let summary = try StoreExport.add(result.items, to: handle.items, update: false)
        return summary.added
    }
}
