public import Data
public import StoreCore

/// The handle's maintenance operations as awaited: each runs on the store's threads (``StoreThreads``),
/// never on the caller's, as the store's own operations do. The synchronous forms are the package's.
extension KeychainHandle {
    /// Who claims refreshes through this handle, and how another claimant's end is seen. On a
    /// PostgreSQL store the first use takes this instance's lock on a connection of its own, kept for the
    /// handle's life; when that fails (the server cannot be reached) only this machine's processes are
    /// told apart, and the lease decides for the others.
    public var refreshClaimants: RefreshClaimants {
        get async { await StoreThreads.run { claimantsBlocking() } }
    }

    /// Decrypts and checks every item and runs the backend's structural check. Never reveals a value.
    /// - Throws: ``SecureStoreError`` when the check itself cannot run.
    public func verify() async throws(SecureStoreError) -> StoreHealth {
        try await StoreThreads.run { () throws(SecureStoreError) in try self.verify() }
    }

    /// Protects the store with a new passphrase or key from now on, in one transaction; the old one
    /// stops working. A new key file is created when missing. The master key stays the same (a re-wrap):
    /// an older copy of the header opens with the old passphrase or key, items written since included;
    /// after a leak, ``rotateKey(to:progress:)``.
    /// - Throws: ``SecureStoreError/invalidKeyMaterial(_:)`` for unusable new material, and the other
    ///   store errors; the old key still works then.
    public func changeKey(to newKey: KeySource) async throws(SecureStoreError) {
        try await StoreThreads.run { () throws(SecureStoreError) in try self.changeKey(to: newKey) }
    }

    /// Replaces the master key with a new random one, re-seals every item of the store under it (all
    /// access groups) and wraps it under `newKey` (the current one, or a new one), in one transaction;
    /// `progress` is called, on the store's threads, with (done, total) as items are re-sealed. Returns
    /// how many items were. An older copy of the header then opens nothing the store holds. Stopped
    /// midway, it changes nothing.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` for a damaged store (nothing changed), and the
    ///   other store errors; the old key still works then.
    public func rotateKey(to newKey: KeySource, progress: (Int, Int) -> Void = { _, _ in }) async throws(SecureStoreError)
        -> Int
    {
        try await StoreThreads.run { () throws(SecureStoreError) in try self.rotateKey(to: newKey, progress: progress) }
    }

    /// Writes every item this handle can see to a new encrypted file at `path` (over an existing one
    /// only with `replacing`), protected by `key` (a passphrase stretched at `cost`, or a key file);
    /// `progress` is called, on the store's threads, with (step, done, total) as items are read from the
    /// store and written to the file. Returns how many items were written.
    public func export(
        to path: String, key: ExportKey, cost: Argon2Cost = .moderate, replacing: Bool = false,
        progress: (ExportStep, Int, Int) -> Void = { _, _, _ in }
    ) async throws(SecureStoreError) -> Int {
        try await StoreThreads.run { () throws(SecureStoreError) in
            try self.export(to: path, key: key, cost: cost, replacing: replacing, progress: progress)
        }
    }

    /// Reads and authenticates the whole export at `path` with `key`, refusing it whole when it does not.
    /// - Throws: ``SecureStoreError/wrongKey`` for the wrong export key, ``SecureStoreError/integrityFailure(_:)``
    ///   for a file cut short, reordered or changed.
    public static func readExport(from path: String, key: ExportKey) async throws(SecureStoreError) -> ExportContents {
        try await StoreThreads.run { () throws(SecureStoreError) in try readExport(from: path, key: key) }
    }

    /// Adds the items of an export in one transaction; with `update`, an item that exists is replaced
    /// instead of refused. `progress` is called, on the store's threads, with (step, done, total) after
    /// each item.
    public func add(
        _ contents: ExportContents, update: Bool, progress: (ExportStep, Int, Int) -> Void = { _, _, _ in }
    ) async throws(SecureStoreError) -> (added: Int, updated: Int) {
        try await StoreThreads.run { () throws(SecureStoreError) in
            try self.add(contents, update: update, progress: progress)
        }
    }
}
