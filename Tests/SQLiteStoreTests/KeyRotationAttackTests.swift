import Data
import Domain
import Foundation
import RawSQLite
import SQLiteStore
import StoreCore
import TestSupport
import Testing

/// The attack a rotation answers, on a real store file: someone who holds the old passphrase and an
/// older copy of the header (a backup, a synced copy) grafts it back into both copies of the header
/// and opens the store. After a re-wrap that reads everything, items written since included; after a
/// rotation it reads nothing, and the file (its free pages, its log) no longer holds the old wrapped key.
@Suite struct KeyRotationAttackTests {
    private static let before = ItemAttributes.genericPassword(service: "api", account: "before")
    private static let after = ItemAttributes.genericPassword(service: "api", account: "after")

    /// The header record as both copies hold it.
    private func headerRecord(_ fixture: StoreFixture) throws -> [RawDatabase.Value] {
        let raw = try fixture.raw()
        let meta = try raw.query("SELECT header, checksum, wrapped_key FROM meta")[0]
        #expect(try raw.query("SELECT header, checksum, wrapped_key FROM meta_copy")[0] == meta)
        return meta
    }

    /// Writes `record` into both copies of the header, as raw bytes.
    private func graft(_ record: [RawDatabase.Value], into fixture: StoreFixture) throws {
        let raw = try fixture.raw()
        try raw.query("UPDATE meta SET header = ?, checksum = ?, wrapped_key = ? WHERE id = 1", record)
        try raw.query("UPDATE meta_copy SET header = ?, checksum = ?, wrapped_key = ? WHERE id = 1", record)
        #expect(try headerRecord(fixture) == record)
    }

    /// A store under "old passphrase" holding one item, and its header record and row ciphertexts then.
    private func oldStore(_ fixture: StoreFixture) throws -> (record: [RawDatabase.Value], ciphertexts: [[UInt8]]) {
        do {
            let store = try fixture.openWithPassphrase("old passphrase")
            try store.add(Self.before, data: secret("OLD-TOKEN"))
        }
        let ciphertexts = try fixture.raw().query("SELECT data FROM items").compactMap(\.first).compactMap(\.bytes)
        #expect(ciphertexts.count == 1)
        return (try headerRecord(fixture), ciphertexts)
    }

    /// Whether `needle` occurs anywhere in `haystack`.
    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// Whether a lookup answered damage (an integrity failure), never the item nor "not found".
    private func isDamaged(_ lookup: ItemLookup) -> Bool {
        if case .damaged(let error) = lookup { error.isIntegrityFailure } else { false }
    }

    @Test func afterARotationTheOldHeaderGraftedBackOpensNothing() throws {
        let fixture = StoreFixture()
        let (old, oldCiphertexts) = try oldStore(fixture)
        let oldWrapped = try #require(old[2].bytes)
        // (The search finds them where they are.)
        #expect(contains(FileBytes.read(fixture.path), oldWrapped))
        #expect(contains(FileBytes.read(fixture.path), oldCiphertexts[0]))
        do {
            let store = try fixture.openWithPassphrase("old passphrase")
            #expect(try store.rotateKey(to: .passphrase(secret("new passphrase"))) == 1)
            #expect(FileBytes.read(fixture.walPath).isEmpty, "the log was not checkpointed and cut")
            try store.add(Self.after, data: secret("NEW-TOKEN"))
        }
        // The file and its log keep neither the old wrapped key nor the rows sealed under the old key:
        // secure_delete overwrote them, and the log was checkpointed and cut.
        for (name, bytes) in fixture.allFileBytes {
            #expect(!contains(bytes, oldWrapped), "the old wrapped key is still in the \(name) file")
            for ciphertext in oldCiphertexts {
                #expect(!contains(bytes, ciphertext), "a row sealed under the old key is still in the \(name) file")
            }
        }

        // The attack: the old header back in both copies, opened with the old passphrase. The key
        // unwraps (it is the old master key), and then nothing authenticates under it: the rows digest is
        // sealed under the new key, and so is every row.
        try graft(old, into: fixture)
        let opened: SQLiteSecureItemStore
        do {
            opened = try fixture.openWithPassphrase("old passphrase")
        } catch {
            Issue.record("the old header did not even open: \(error)")
            return
        }
        for query in [Self.before, Self.after] {
            let error = #expect(throws: SecureStoreError.self) { try opened.findString(query) }
            #expect(error?.isIntegrityFailure == true, "\(String(describing: error))")
        }
        #expect(isDamaged(opened.lookup(Self.after)))
        let report = try opened.verify()
        #expect(!report.isSound)
        #expect(report.soundItems == 0)
        #expect(report.damagedItems == 2)
    }

    @Test func afterAReWrapTheOldHeaderGraftedBackReadsEverythingWrittenSince() throws {
        let fixture = StoreFixture()
        let (old, _) = try oldStore(fixture)
        do {
            let store = try fixture.openWithPassphrase("old passphrase")
            try store.changeKey(to: .passphrase(secret("new passphrase")))
            try store.add(Self.after, data: secret("NEW-TOKEN"))
        }
        // The re-wrap's limit, as documented: the same master key under the old header.
        try graft(old, into: fixture)
        let opened = try fixture.openWithPassphrase("old passphrase")
        #expect(try opened.findString(Self.before) == "OLD-TOKEN")
        #expect(try opened.findString(Self.after) == "NEW-TOKEN")
    }

    @Test func aCopyOfTheWholeFileFromBeforeARotationOpensOnlyWhatItHeld() throws {
        let fixture = StoreFixture()
        _ = try oldStore(fixture)
        let backup = FileBytes.read(fixture.path)
        do {
            let store = try fixture.openWithPassphrase("old passphrase")
            try store.rotateKey(to: .passphrase(secret("new passphrase")))
            try store.add(Self.after, data: secret("NEW-TOKEN"))
        }
        // The current file's rows under the backup's header: the old key authenticates none of them.
        let current = FileBytes.read(fixture.path)
        try FileBytes.writePrivate(backup, to: fixture.path)
        let oldRecord = try headerRecord(fixture)
        try FileBytes.writePrivate(current, to: fixture.path)
        try graft(oldRecord, into: fixture)
        let opened = try fixture.openWithPassphrase("old passphrase")
        #expect(isDamaged(opened.lookup(Self.after)))
        #expect(isDamaged(opened.lookup(Self.before)))
    }
}
