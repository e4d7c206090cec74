public import Data

/// Salvage as awaited: each step runs on the store's threads (``StoreThreads``), never on the caller's.
extension StoreSalvager {
    /// Reads what can be salvaged from the store `source` describes, unlocked with its key, without
    /// changing it: a file is read page by page (its log too) without SQLite, a PostgreSQL store row by row.
    /// - Throws: ``SecureStoreError/wrongKey`` when the key opens no copy of the header;
    ///   ``SecureStoreError/integrityFailure(_:)`` when no header is left; ``SecureStoreError/itemNotFound``
    ///   when there is no store file; storage errors when the store cannot be read at all.
    public static func read(_ source: StoreConfiguration) async throws(SecureStoreError) -> SalvagedStore {
        try await StoreThreads.run { () throws(SecureStoreError) in try read(source) }
    }

    /// The counts of a store the database could not open or read through, read as salvage reads it: the
    /// items that authenticate are sound, those lost (and those the rows digest counts but left no trace)
    /// damaged. `nil` when even that cannot be read (no header left, the wrong key, no such store).
    public static func health(_ source: StoreConfiguration) async -> StoreHealth? {
        await StoreThreads.run { () -> StoreHealth? in health(source) }
    }

    /// The damage to the store's file itself: an SQLite file cut short (empty, or shorter than its
    /// header says); nothing on PostgreSQL.
    public static func fileDamage(_ source: StoreConfiguration) async -> StoreHealth.DamageKinds {
        await StoreThreads.run { () -> StoreHealth.DamageKinds in fileDamage(source) }
    }

    /// Writes the salvaged items into the new store `target` in one transaction (all or none), with every
    /// access group the items belong to; returns how many were written.
    public static func write(_ salvaged: SalvagedStore, to target: StoreConfiguration) async throws(SecureStoreError)
        -> Int
    {
        try await StoreThreads.run { () throws(SecureStoreError) in try write(salvaged, to: target) }
    }
}
