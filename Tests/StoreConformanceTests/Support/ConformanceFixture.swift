import Data
import Domain
import Foundation
import StoreCore
import TestSupport

/// A fresh store of one adapter and a private temporary directory for its key files, for one test.
///
/// A handle is closed when it is released: scope handles in `do { }` blocks to reopen a store.
struct ConformanceFixture: Sendable {
    /// The adapter under test.
    let adapter: StoreAdapter
    /// The test's 0700 directory.
    let directory = TemporaryDirectory()
    /// The store.
    let location: StoreLocation
    /// The key file `open` uses (created with the store).
    var keyFile: String { directory.file("keychain.key") }

    /// A new store of `adapter`.
    init(_ adapter: StoreAdapter) throws {
        self.adapter = adapter
        location = try adapter.makeStore(directory)
    }

    /// Opens a handle unlocked by ``keyFile``.
    func open(
        groups: [String] = ["default"], durability: StoreOptions.Durability = .full,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(SecureStoreError) -> any StoreHandle {
        try open(
            .keyFile(path: keyFile), groups: groups,
            options: StoreOptions(durability: durability, passphraseCost: .interactive, now: now))
    }

    /// Opens a handle unlocked by a passphrase.
    func openWithPassphrase(_ passphrase: String, cost: Argon2Cost = .interactive) throws(SecureStoreError)
        -> any StoreHandle
    {
        try open(.passphrase(SecretBytes(utf8: passphrase)), options: StoreOptions(passphraseCost: cost))
    }

    /// Opens a handle unlocked by another key file.
    func openWithKeyFile(_ keyFile: String) throws(SecureStoreError) -> any StoreHandle {
        try open(.keyFile(path: keyFile))
    }

    /// Opens a handle with any key source and options.
    func open(
        _ keySource: KeySource, groups: [String] = ["default"],
        options: StoreOptions = StoreOptions(passphraseCost: .interactive)
    ) throws(SecureStoreError) -> any StoreHandle {
        try location.open(keySource, groups, options)
    }

    /// The backend's state, to compare before and after an attempt that must change nothing.
    var persistedState: [UInt8] { location.persistedState() }
}
