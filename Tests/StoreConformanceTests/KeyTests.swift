import CSodium
import Data
import Domain
import Foundation
import StoreCore
import TestSupport
import Testing

/// Passphrases, key files, key changes, locking: the right key opens the store, nothing else does,
/// and a failed attempt leaves the store as it was.
@Suite struct KeyTests {
    private let query = ItemAttributes.genericPassword(service: "api", account: "alice")

    /// Creates a passphrase store holding one item, and closes it.
    private func createPassphraseStore(_ fixture: ConformanceFixture, _ passphrase: String = "correct horse") throws {
        let store = try fixture.openWithPassphrase(passphrase)
        try store.add(query, data: secret("token"))
    }

    /// Creates a key-file store holding one item, and closes it.
    private func createKeyFileStore(_ fixture: ConformanceFixture) throws {
        let store = try fixture.open()
        try store.add(query, data: secret("token"))
    }

    private func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    @Test(arguments: StoreAdapter.all)
    func theRightPassphraseOpensTheStore(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        try createPassphraseStore(fixture)
        let store = try fixture.openWithPassphrase("correct horse")
        #expect(try store.findString(query) == "token")
    }

    @Test(arguments: StoreAdapter.all)
    func aWrongPassphraseIsWrongKeyAndLeavesTheFileUntouched(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        try createPassphraseStore(fixture)
        let before = fixture.persistedState
        #expect(!before.isEmpty)
        #expect(throws: SecureStoreError.wrongKey) { try fixture.openWithPassphrase("wrong horse") }
        #expect(throws: SecureStoreError.wrongKey) { try fixture.openWithPassphrase("correct horse ") }
        #expect(fixture.persistedState == before)
        #expect(try fixture.openWithPassphrase("correct horse").findString(query) == "token")
    }

    @Test(arguments: StoreAdapter.all)
    func anEmptyPassphraseIsRefused(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let error = #expect(throws: SecureStoreError.self) { try fixture.openWithPassphrase("") }
        #expect(error?.isInvalidKeyMaterial == true)
        try createPassphraseStore(fixture)
        let again = #expect(throws: SecureStoreError.self) { try fixture.openWithPassphrase("") }
        #expect(again?.isInvalidKeyMaterial == true)
    }

    @Test(arguments: StoreAdapter.all)
    func aPassphraseStoreOpenedWithAKeyFileIsAKeySourceMismatch(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        try createPassphraseStore(fixture)
        let before = fixture.persistedState
        let error = #expect(throws: SecureStoreError.self) { try fixture.open() }
        #expect(error?.isKeySourceMismatch == true)
        #expect(!FileManager.default.fileExists(atPath: fixture.keyFile))
        #expect(fixture.persistedState == before)
    }

    @Test(arguments: StoreAdapter.all)
    func aKeyFileStoreOpenedWithAPassphraseIsAKeySourceMismatch(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        try createKeyFileStore(fixture)
        let error = #expect(throws: SecureStoreError.self) { try fixture.openWithPassphrase("anything") }
        #expect(error?.isKeySourceMismatch == true)
    }

    @Test(arguments: StoreAdapter.all)
    func anotherKeyFileIsWrongKey(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        try createKeyFileStore(fixture)
        let before = fixture.persistedState
        let other = fixture.directory.file("other.key")
        try FileBytes.writePrivate(randomBytes(32), to: other)
        #expect(throws: SecureStoreError.wrongKey) { try fixture.openWithKeyFile(other) }
        #expect(fixture.persistedState == before)
    }

    @Test(arguments: StoreAdapter.all, [0, 1, 16, 31, 33, 64, 1000])
    func aKeyFileOfTheWrongSizeIsInvalidKeyMaterial(adapter: StoreAdapter, size: Int) throws {
        let fixture = try ConformanceFixture(adapter)
        try createKeyFileStore(fixture)
        let damaged = fixture.directory.file("damaged.key")
        // The real key cut short, or the real key followed by more bytes.
        let bytes = Array(FileBytes.read(fixture.keyFile).prefix(size)) + randomBytes(max(0, size - 32))
        try FileBytes.writePrivate(bytes, to: damaged)
        let error = #expect(throws: SecureStoreError.self) { try fixture.openWithKeyFile(damaged) }
        #expect(error?.isInvalidKeyMaterial == true)
        if case .invalidKeyMaterial(let reason) = error {
            #expect(reason.contains(size == 0 ? "empty" : "32"))
            if size > 64 { #expect(!reason.contains("holds 65 bytes")) }
        }
    }

    @Test(arguments: StoreAdapter.all)
    func aMissingKeyFileForAnExistingStoreIsNotRecreated(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        try createKeyFileStore(fixture)
        try FileManager.default.removeItem(atPath: fixture.keyFile)
        let before = fixture.persistedState
        let error = #expect(throws: SecureStoreError.self) { try fixture.open() }
        #expect(error?.isInvalidKeyMaterial == true)
        #expect(!FileManager.default.fileExists(atPath: fixture.keyFile))
        #expect(fixture.persistedState == before)
    }

    @Test(arguments: StoreAdapter.all)
    func aKeyFileOthersCanReadIsRefused(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        try createKeyFileStore(fixture)
        #expect(chmod(fixture.keyFile, 0o644) == 0)
        let error = #expect(throws: SecureStoreError.self) { try fixture.open() }
        #expect(error?.isInsecurePermissions == true)
        #expect(error?.description.contains("chmod 600") == true)
    }

    @Test(arguments: StoreAdapter.all)
    func changingThePassphraseRewrapsTheKeyAndKeepsTheItems(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        try createPassphraseStore(fixture, "old passphrase")
        do {
            let store = try fixture.openWithPassphrase("old passphrase")
            try store.add(.genericPassword(service: "second"), data: secret("two"))
            #expect(throws: SecureStoreError.invalidKeyMaterial("the passphrase is empty")) {
                try store.changeKey(to: .passphrase(secret("")))
            }
            try store.changeKey(to: .passphrase(secret("new passphrase")))
            // The open handle keeps working.
            #expect(try store.findString(query) == "token")
        }
        #expect(throws: SecureStoreError.wrongKey) { try fixture.openWithPassphrase("old passphrase") }
        let reopened = try fixture.openWithPassphrase("new passphrase")
        #expect(try reopened.findString(query) == "token")
        #expect(try reopened.findString(.genericPassword(service: "second")) == "two")
        #expect(try reopened.verify().isSound)
    }

    @Test(arguments: StoreAdapter.all)
    func changingFromAPassphraseToAKeyFileAndBack(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        try createPassphraseStore(fixture, "pass")
        do {
            let store = try fixture.openWithPassphrase("pass")
            try store.changeKey(to: .keyFile(path: fixture.keyFile))
        }
        #expect(FileBytes.read(fixture.keyFile).count == 32)
        let error = #expect(throws: SecureStoreError.self) { try fixture.openWithPassphrase("pass") }
        #expect(error?.isKeySourceMismatch == true)
        do {
            let store = try fixture.open()
            #expect(try store.findString(query) == "token")
            try store.changeKey(to: .passphrase(secret("back")))
        }
        #expect(try fixture.openWithPassphrase("back").findString(query) == "token")
    }

    @Test(arguments: StoreAdapter.all)
    func aKeyChangeToAnUnusableCostIsRefusedAndTheOldKeyStillWorks(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        try createPassphraseStore(fixture, "pass")
        do {
            let store = try fixture.open(
                .passphrase(secret("pass")),
                options: StoreOptions(passphraseCost: Argon2Cost(opsLimit: 1000, memLimit: 1 << 20)))
            let error = #expect(throws: SecureStoreError.self) { try store.changeKey(to: .passphrase(secret("new"))) }
            #expect(error?.isInvalidKeyMaterial == true)
        }
        #expect(try fixture.openWithPassphrase("pass").findString(query) == "token")
    }

    @Test(arguments: StoreAdapter.all)
    func aLockedStoreRefusesEveryItemOperationUntilUnlocked(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        try createPassphraseStore(fixture, "pass")
        let store = try fixture.openWithPassphrase("pass")
        #expect(!store.isLocked)
        store.lock()
        #expect(store.isLocked)
        #expect(throws: SecureStoreError.locked) { try store.find(query) }
        #expect(throws: SecureStoreError.locked) { try store.findString(query) }
        #expect(throws: SecureStoreError.locked) { try store.add(.genericPassword(service: "new"), data: secret("x")) }
        #expect(throws: SecureStoreError.locked) { try store.addOrUpdate(query, data: secret("x")) }
        #expect(throws: SecureStoreError.locked) { try store.update(query, data: secret("x")) }
        #expect(throws: SecureStoreError.locked) { try store.delete(query) }
        #expect(throws: SecureStoreError.locked) { try store.verify() }
        #expect(throws: SecureStoreError.locked) { try store.changeKey(to: .passphrase(secret("other"))) }
        #expect(throws: SecureStoreError.locked) {
            try store.transaction { transaction in try transaction.find(query, limit: .one, returning: .data) }
        }

        #expect(throws: SecureStoreError.wrongKey) { try store.unlock(with: .passphrase(secret("wrong"))) }
        #expect(store.isLocked)
        try store.unlock(with: .passphrase(secret("pass")))
        #expect(!store.isLocked)
        #expect(try store.findString(query) == "token")
        try store.add(.genericPassword(service: "new"), data: secret("x"))
        #expect(try store.findString(.genericPassword(service: "new")) == "x")
    }

    @Test(arguments: StoreAdapter.all)
    func anotherHandlesKeyChangeIsSeenOnUnlock(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        try createPassphraseStore(fixture, "pass")
        let first = try fixture.openWithPassphrase("pass")
        let second = try fixture.openWithPassphrase("pass")
        try first.changeKey(to: .passphrase(secret("next")))
        second.lock()
        #expect(throws: SecureStoreError.wrongKey) { try second.unlock(with: .passphrase(secret("pass"))) }
        try second.unlock(with: .passphrase(secret("next")))
        #expect(try second.findString(query) == "token")
    }
}
