import Data
import Domain
import Foundation
import Infrastructure
import TestSupport

/// A store in a fresh temporary directory with a key file, opened for one test.
struct StoreFixture {
    let directory = TemporaryDirectory()
    var path: String { directory.file("keychain.db") }
    var keyFile: String { directory.file("keychain.key") }

    func open(
        groups: [String] = ["default"], durability: StoreOptions.Durability = .full
    ) throws -> SQLiteSecureItemStore {
        try SQLiteSecureItemStore.open(
            at: path, keySource: .keyFile(path: keyFile), accessGroups: groups,
            options: StoreOptions(durability: durability, passphraseCost: .interactive))
    }

    func openWithPassphrase(_ passphrase: String, cost: Argon2Cost = .interactive) throws -> SQLiteSecureItemStore {
        try SQLiteSecureItemStore.open(
            at: path, keySource: .passphrase(SecretBytes(utf8: passphrase)),
            options: StoreOptions(passphraseCost: cost))
    }
}

extension SecretBytes {
    /// The bytes as a string, for assertions.
    var text: String? { revealedString() }
}
