public import Foundation

/// How a store is opened: durability, passphrase cost, lock waits and the clock.
public struct StoreOptions: Sendable {
    /// SQLite's `synchronous` setting for the store's connection.
    public enum Durability: String, Sendable {
        /// `synchronous=FULL`: every commit is on disk before it returns (one WAL fsync). The default.
        case full = "FULL"
        /// `synchronous=NORMAL`: a commit may be lost on power failure (never on a process crash) but
        /// the file is never corrupted; about ten times faster writes.
        case normal = "NORMAL"
    }

    /// The durability of commits.
    public var durability: Durability
    /// The Argon2id cost used when a store is created or its passphrase is changed.
    public var passphraseCost: Argon2Cost
    /// How long a write waits for another process's lock before failing.
    public var busyTimeoutMilliseconds: Int32
    /// Told once per wait when a write has waited a second for another process's lock.
    public var onLongWait: (@Sendable () -> Void)?
    /// The clock for creation and modification dates.
    public var now: @Sendable () -> Date
    /// The caller only reads: where the store's file or directory cannot be written (read-only media),
    /// a SQLite store is opened read-only instead of failing; its writes then fail as read-only.
    public var onlyReads = false
    /// The store's rollback anchor, if it keeps one (SQLite stores of format 4): an older copy of the
    /// whole store put back is then damage.
    public var rollbackAnchor: RollbackAnchorSetting?
    /// The format of a new store's header (``StoreHeader/currentVersion`` unless a test sets 1, to make
    /// a store like the Hardtack of format 1 did, whose rows keep that format's layout: ``RowFormat``).
    package var newStoreFormat: UInt8 = StoreHeader.currentVersion

    /// Creates options; the defaults are durable and at least Argon2id MODERATE.
    public init(
        durability: Durability = .full, passphraseCost: Argon2Cost = .moderate,
        busyTimeoutMilliseconds: Int32 = 10_000, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.durability = durability
        self.passphraseCost = passphraseCost
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.now = now
    }
}
