import Data
import SQLiteStore
import TestSupport

extension SQLiteSecureItemStore: StoreHandle {}

extension StoreAdapter {
    /// The store in a SQLite file in the test's 0700 directory; its state is the bytes of the file
    /// and its write-ahead log.
    static let sqlite = StoreAdapter(name: "SQLite") { scratch in
        let path = scratch.file("keychain.db")
        return StoreLocation(
            open: { keySource, groups, options throws(SecureStoreError) in
                try SQLiteSecureItemStore.open(at: path, keySource: keySource, accessGroups: groups, options: options)
            },
            persistedState: { FileBytes.read(path) + FileBytes.read(path + "-wal") })
    }
}
