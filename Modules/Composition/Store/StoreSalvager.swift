package import Data
import Foundation
import PostgreSQLStore
import SQLiteStore
import StoreCore

/// Salvage: the items of a damaged store that still authenticate, read without changing it, then
/// written into a new store in one transaction. These block the caller's thread; the awaited forms
/// (StoreSalvager+Async) run on the store's threads.
public enum StoreSalvager {
    /// ``read(_:)``, on the caller's thread, which it blocks for the whole read.
    package static func read(_ source: StoreConfiguration) throws(SecureStoreError) -> SalvagedStore {
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

    /// ``health(_:)``, on the caller's thread.
    package static func health(_ source: StoreConfiguration) -> StoreHealth? {
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

    /// ``fileDamage(_:)``, on the caller's thread.
    package static func fileDamage(_ source: StoreConfiguration) -> StoreHealth.DamageKinds {
        var kinds = StoreHealth.DamageKinds()
        if !StoreConfiguration.isPostgreSQL(source.storePath) { kinds.cutShort = StoreFileShape.cutShort(source.storePath) }
        return kinds
    }

    /// ``write(_:to:)``, on the caller's thread, which it blocks for the whole write.
    package static func write(_ salvaged: SalvagedStore, to target: StoreConfiguration) throws(SecureStoreError) -> Int {
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
