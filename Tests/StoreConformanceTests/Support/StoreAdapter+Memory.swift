import Data
import MemoryStore

extension MemorySecureItemStore: StoreHandle {}

extension StoreAdapter {
    /// The store in a new ``MemoryDatabase``; its state is the database's commit count.
    static let memory = StoreAdapter(name: "memory") { _ in
        let database = MemoryDatabase()
        return StoreLocation(
            open: { keySource, groups, options throws(SecureStoreError) in
                try MemorySecureItemStore.open(in: database, keySource: keySource, accessGroups: groups, options: options)
            },
            persistedState: { withUnsafeBytes(of: database.commitCount) { Array($0) } })
    }
}
