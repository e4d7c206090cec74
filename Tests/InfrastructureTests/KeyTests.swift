import CSodium
import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore
import TestSupport
import Testing

/// Passphrases, key files, key changes, locking: the right key opens the store, nothing else does,
/// and a failed attempt leaves the file as it was.
@Suite struct KeyTests {
    let fixture = StoreFixture()
    private let query = ItemAttributes.genericPassword(service: "api", account: "alice")

    /// Creates a passphrase store holding one item, and closes it.
    private func createPassphraseStore(_ passphrase: String = "correct horse") throws {
        let store = try fixture.openWithPassphrase(passphrase)
        try store.add(query, data: secret("token"))
        try store.checkpoint()
    }

    /// Creates a key-file store holding one item, and closes it.
    private func createKeyFileStore() throws {
        let store = try fixture.open()
        try store.add(query, data: secret("token"))
        try store.checkpoint()
    }

    private func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    @Test func theRightPassphraseOpensTheStore() throws {
        try createPassphraseStore()
        let store = try fixture.openWithPassphrase("correct horse")
        #expect(try store.findString(query) == "token")
    }

    @Test func aWrongPassphraseIsWrongKeyAndLeavesTheFileUntouched() throws {
        try createPassphraseStore()
        let before = FileBytes.read(fixture.path)
        #expect(!before.isEmpty)
        #expect(throws: SecureStoreError.wrongKey) { try fixture.openWithPassphrase("wrong horse") }
        #expect(throws: SecureStoreError.wrongKey) { try fixture.openWithPassphrase("correct horse ") }
        #expect(fileIsUnchanged(fixture.path, before))
        #expect(try fixture.openWithPassphrase("correct horse").findString(query) == "token")
    }

    @Test func anEmptyPassphraseIsRefused() throws {
        let error = #expect(throws: SecureStoreError.self) { try fixture.openWithPassphrase("") }
        #expect(error?.isInvalidKeyMaterial == true)
        try createPassphraseStore()
        let again = #expect(throws: SecureStoreError.self) { try fixture.openWithPassphrase("") }
        #expect(again?.isInvalidKeyMaterial == true)
    }

    @Test func aPassphraseStoreOpenedWithAKeyFileIsAKeySourceMismatch() throws {
        try createPassphraseStore()
        let before = FileBytes.read(fixture.path)
        let error = #expect(throws: SecureStoreError.self) { try fixture.open() }
        #expect(error?.isKeySourceMismatch == true)
        #expect(!FileManager.default.fileExists(atPath: fixture.keyFile))
        #expect(fileIsUnchanged(fixture.path, before))
    }

    @Test func aKeyFileStoreOpenedWithAPassphraseIsAKeySourceMismatch() throws {
        try createKeyFileStore()
        let error = #expect(throws: SecureStoreError.self) { try fixture.openWithPassphrase("anything") }
        #expect(error?.isKeySourceMismatch == true)
    }

    @Test func anotherKeyFileIsWrongKey() throws {
        try createKeyFileStore()
        let before = FileBytes.read(fixture.path)
        let other = fixture.directory.file("other.key")
        try FileBytes.writePrivate(randomBytes(32), to: other)
        #expect(throws: SecureStoreError.wrongKey) { try fixture.openWithKeyFile(other) }
        #expect(fileIsUnchanged(fixture.path, before))
    }

    @Test(arguments: [0, 1, 16, 31, 33, 64, 1000])
    func aKeyFileOfTheWrongSizeIsInvalidKeyMaterial(size: Int) throws {
        try createKeyFileStore()
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

    @Test func aMissingKeyFileForAnExistingStoreIsNotRecreated() throws {
        try createKeyFileStore()
        try FileManager.default.removeItem(atPath: fixture.keyFile)
        let before = FileBytes.read(fixture.path)
        let error = #expect(throws: SecureStoreError.self) { try fixture.open() }
        #expect(error?.isInvalidKeyMaterial == true)
        #expect(!FileManager.default.fileExists(atPath: fixture.keyFile))
        #expect(fileIsUnchanged(fixture.path, before))
    }

    @Test func aKeyFileOthersCanReadIsRefused() throws {
        try createKeyFileStore()
        #expect(chmod(fixture.keyFile, 0o644) == 0)
        let error = #expect(throws: SecureStoreError.self) { try fixture.open() }
        #expect(error?.isInsecurePermissions == true)
        #expect(error?.description.contains("chmod 600") == true)
    }

    @Test func changingThePassphraseRewrapsTheKeyAndKeepsTheItems() throws {
        try createPassphraseStore("old passphrase")
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

    @Test func changingFromAPassphraseToAKeyFileAndBack() throws {
        try createPassphraseStore("pass")
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

    @Test func aKeyChangeToAnUnusableCostIsRefusedAndTheOldKeyStillWorks() throws {
        try createPassphraseStore("pass")
        do {
            let store = try SQLiteSecureItemStore.open(
                at: fixture.path, keySource: .passphrase(secret("pass")),
                options: StoreOptions(passphraseCost: Argon2Cost(opsLimit: 1000, memLimit: 1 << 20)))
            let error = #expect(throws: SecureStoreError.self) { try store.changeKey(to: .passphrase(secret("new"))) }
            #expect(error?.isInvalidKeyMaterial == true)
        }
        #expect(try fixture.openWithPassphrase("pass").findString(query) == "token")
    }

    @Test func aLockedStoreRefusesEveryItemOperationUntilUnlocked() throws {
        try createPassphraseStore("pass")
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

    @Test func anotherHandlesKeyChangeIsSeenOnUnlock() throws {
        try createPassphraseStore("pass")
        let first = try fixture.openWithPassphrase("pass")
        let second = try fixture.openWithPassphrase("pass")
        try first.changeKey(to: .passphrase(secret("next")))
        second.lock()
        #expect(throws: SecureStoreError.wrongKey) { try second.unlock(with: .passphrase(secret("pass"))) }
        try second.unlock(with: .passphrase(secret("next")))
        #expect(try second.findString(query) == "token")
    }
}
