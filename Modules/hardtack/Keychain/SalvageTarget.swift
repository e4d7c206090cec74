import Composition
import Foundation

/// Where `salvage --to` may write: a new store, never the damaged one it reads.
enum SalvageTarget {
    /// Why `target` cannot be used, or `nil` when it can: it must be a new store, not the source.
    static func refusal(_ target: StoreConfiguration, source: StoreConfiguration) async -> String? {
        if sameStore(target.storePath, source.storePath) {
            return "the salvage target is the damaged store itself; name a new store with --to"
        }
        if StoreConfiguration.isPostgreSQL(target.storePath) {
            // A server that cannot be asked counts as holding a store.
            guard await !target.storeExists else {
                return "a store already exists at \(target.displayLocation) (or the server cannot be asked); "
                    + "salvage writes only into a new store"
            }
            return nil
        }
        for path in [target.storePath, target.storePath + "-wal"] where FileManager.default.fileExists(atPath: path) {
            return "\(path) already exists; salvage writes only into a new store"
        }
        return nil
    }

    /// Whether two locations name one store: the same file (after resolving links) or the same URI.
    private static func sameStore(_ lhs: String, _ rhs: String) -> Bool {
        if lhs == rhs { return true }
        guard !StoreConfiguration.isPostgreSQL(lhs), !StoreConfiguration.isPostgreSQL(rhs) else { return false }
        return FilePath.resolved(lhs) == FilePath.resolved(rhs)
    }
}
