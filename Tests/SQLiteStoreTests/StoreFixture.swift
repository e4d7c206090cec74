import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore
import RawSQLite
import TestSupport

/// A store in a fresh temporary directory with a key file, opened for one test.
///
/// A handle is closed when it is released: scope handles in `do { }` blocks before touching the files.
struct StoreFixture {
    let directory = TemporaryDirectory()
    /// The header format the store is created in (``StoreHeader/currentVersion`` unless a test makes a
    /// format-1 store).
    var format: UInt8 = StoreHeader.currentVersion
    var path: String { directory.file("keychain.db") }
    var keyFile: String { directory.file("keychain.key") }
    /// The rollback anchor every open of this fixture names, if any.
    var anchor: RollbackAnchorSetting?
    /// Where a test keeps the store's rollback anchor.
    var anchorPath: String { directory.file("keychain.anchor") }
    var walPath: String { path + "-wal" }
    var shmPath: String { path + "-shm" }

    func open(
        groups: [String] = ["default"], durability: StoreOptions.Durability = .full,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(SecureStoreError) -> SQLiteSecureItemStore {
        try SQLiteSecureItemStore.open(
            at: path, keySource: .keyFile(path: keyFile), accessGroups: groups,
            options: options(StoreOptions(durability: durability, passphraseCost: .interactive, now: now)))
    }

    /// `options` creating a store in ``format``.
    private func options(_ options: StoreOptions) -> StoreOptions {
        var options = options
        options.newStoreFormat = format
        options.rollbackAnchor = anchor
        return options
    }

    func openWithPassphrase(_ passphrase: String, cost: Argon2Cost = .interactive) throws(SecureStoreError)
        -> SQLiteSecureItemStore
    {
        try SQLiteSecureItemStore.open(
            at: path, keySource: .passphrase(SecretBytes(utf8: passphrase)),
            options: options(StoreOptions(passphraseCost: cost)))
    }

    func openWithKeyFile(_ keyFile: String) throws(SecureStoreError) -> SQLiteSecureItemStore {
        try SQLiteSecureItemStore.open(
            at: path, keySource: .keyFile(path: keyFile), options: options(StoreOptions(passphraseCost: .interactive)))
    }

    /// A raw SQLite connection to the store file; open it only while no handle is open.
    func raw() throws -> RawDatabase { try RawDatabase(path: path) }

    /// The bytes of the database file and its `-wal` and `-shm` companions.
    var allFileBytes: [(name: String, bytes: [UInt8])] {
        [("db", FileBytes.read(path)), ("wal", FileBytes.read(walPath)), ("shm", FileBytes.read(shmPath))]
    }
}

/// Whether the file at `path` still holds exactly `bytes` (a Bool, so a failure does not print both).
func fileIsUnchanged(_ path: String, _ bytes: [UInt8]) -> Bool { FileBytes.read(path) == bytes }
