public import Data
import SQLiteStore

/// An open, unlocked store: its items through the ``SecureItemStore`` port, plus the maintenance
/// operations that only the concrete store offers.
public struct KeychainHandle: Sendable {
    private let store: SQLiteSecureItemStore

    init(store: SQLiteSecureItemStore) {
        self.store = store
    }

    /// The items, through the port the rest of the app uses.
    public var items: any SecureItemStore { store }

    /// The database file.
    public var storePath: String { store.path }

    /// Decrypts and checks every item and runs SQLite's structural check. Never reveals a value.
    /// - Throws: ``SecureStoreError`` when the check itself cannot run.
    public func verify() throws(SecureStoreError) -> StoreHealth {
        let report = try store.verify()
        return StoreHealth(
            soundItems: report.soundItems, damagedItems: report.damagedItems, databaseCheck: report.databaseCheck)
    }

    /// Protects the store with a new passphrase or key from now on, in one transaction; the old one
    /// stops working. A new key file is created when missing.
    /// - Throws: ``SecureStoreError/invalidKeyMaterial(_:)`` for unusable new material, and the other
    ///   store errors; the old key still works then.
    public func changeKey(to newKey: KeyChoice) throws(SecureStoreError) {
        try store.changeKey(to: newKey.keySource)
    }
}
