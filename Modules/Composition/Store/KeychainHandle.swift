public import Data
public import Domain
import PostgreSQLStore
import SQLiteStore
package import StoreCore

/// An open, unlocked store: its items through the ``SecureItemStore`` port, plus the maintenance
/// operations that every backend's store offers.
public struct KeychainHandle: Sendable {
    /// The store behind the handle, by backend.
    enum Backend: Sendable {
        /// A store in one SQLite file.
        case sqlite(SQLiteSecureItemStore)
        /// A store on a PostgreSQL server.
        case postgreSQL(PostgreSQLSecureItemStore)
    }

    private let backend: Backend
    /// This instance's lock on a PostgreSQL store's server, taken on first use.
    private let instanceLock = InstanceLockSlot()
    /// What ``items`` goes through instead of the backend's store, when set (a test's recording store).
    private var itemsOverride: (any SecureItemStore)?

    init(_ backend: Backend) {
        self.backend = backend
    }

    /// ``refreshClaimants``, on the caller's thread, which it blocks while the instance lock is taken.
    func claimantsBlocking() -> RefreshClaimants {
        switch backend {
        case .sqlite: RefreshClaimants(instanceLock: nil)
        case .postgreSQL(let store): RefreshClaimants(instanceLock: instanceLock.take { try? store.takeInstanceLock() })
        }
    }

    /// The items, through the port the rest of the app uses.
    public var items: any SecureItemStore {
        if let itemsOverride { return itemsOverride }
        return switch backend {
        case .sqlite(let store): store
        case .postgreSQL(let store): store
        }
    }

    /// This handle with its items reached through what `wrap` makes of them (a test's store that records
    /// where each call runs); everything else, the instance lock included, is this handle's.
    package func wrappingItems(_ wrap: (any SecureItemStore) -> any SecureItemStore) -> KeychainHandle {
        var wrapped = self
        wrapped.itemsOverride = wrap(items)
        return wrapped
    }

    /// Every account with a session in the store (in the handle's first access group), sorted by name.
    /// - Throws: ``AuthenticationError/storeUnavailable(_:)`` when the store is locked or damaged.
    public func accounts() async throws(AuthenticationError) -> [AccountName] {
        try await SecureStoreSessionRepository.accounts(in: items)
    }

    /// Where the store is, safe to show: the database file, or the server's URI without its password.
    public var storePath: String {
        switch backend {
        case .sqlite(let store): store.path
        case .postgreSQL(let store): store.location
        }
    }

    /// ``verify()``, on the caller's thread, which it blocks for the whole check.
    package func verify() throws(SecureStoreError) -> StoreHealth {
        let report =
            switch backend {
            case .sqlite(let store): try store.verify()
            case .postgreSQL(let store): try store.verify()
            }
        let damaged = report.damaged.map(UnsoundItem.init)
        var kinds = StoreHealth.DamageKinds()
        kinds.rows = report.damagedItems
        kinds.rowsDigest = !report.digestMatches
        if case .sqlite(let store) = backend {
            kinds.pages = SQLiteSalvageSource.damagedPages(path: store.path)
            // The store opened from a sound copy of its header; the other may be damaged.
            kinds.headerProblem = try store.headerDamage()
            kinds.header = kinds.headerProblem != nil
        }
        return StoreHealth(
            soundItems: report.soundItems, damagedItems: report.damagedItems, databaseCheck: report.databaseCheck,
            damaged: damaged, kinds: kinds)
    }

    /// ``changeKey(to:)``, on the caller's thread, which it blocks while the key is derived and written.
    package func changeKey(to newKey: KeySource) throws(SecureStoreError) {
        switch backend {
        case .sqlite(let store): try store.changeKey(to: newKey)
        case .postgreSQL(let store): try store.changeKey(to: newKey)
        }
    }

    /// ``rotateKey(to:progress:)``, on the caller's thread, which it blocks while every item is re-sealed.
    package func rotateKey(to newKey: KeySource, progress: (Int, Int) -> Void) throws(SecureStoreError) -> Int {
        switch backend {
        case .sqlite(let store): try store.rotateKey(to: newKey, progress: progress)
        case .postgreSQL(let store): try store.rotateKey(to: newKey, progress: progress)
        }
    }
}
