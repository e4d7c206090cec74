import Data
import Domain
import Foundation
import RawSQLite
import StoreCore
import TestSupport
import Testing

/// Someone who can write the file puts back the past of one row while every other row keeps its
/// current value: an older ciphertext of one item (an old refresh token), or an item deleted since,
/// with the sealed rows digest from before the delete. A row's ciphertext is bound to its id, class and
/// indexes, not to a time, so an older one still decrypts; from format 4 the rows digest counts each
/// row's ciphertexts, so that older one no longer matches it, and every later data-only write changes
/// the digest. Each attack is shown to succeed on a format-3 store, whose digest counts only ids,
/// classes and index cells: that is what shows the attack here is the real one.
///
/// The edits go through `RawDatabase`, which writes valid page checksums, as an attacker who knows the
/// file format would.
@Suite struct RowRollbackTests {
    private let mail = ItemAttributes.genericPassword(service: "mail", account: "alice")
    private let web = ItemAttributes.genericPassword(service: "web", account: "bob")
    private let later = ItemAttributes.genericPassword(service: "later", account: "carol")

    /// Every column of item row `id`, as stored.
    private func row(_ fixture: StoreFixture, _ id: Int64) throws -> [RawDatabase.Value] {
        try #require(
            try fixture.raw().query("SELECT id, class, grp, uniq, prim, attrs, data FROM items WHERE id = ?", [.integer(id)])
                .first)
    }

    private func rowID(_ fixture: StoreFixture, service: String) throws -> Int64 {
        // Rows are in insertion order: `mail` is the first, `web` the second.
        let ids = try fixture.raw().query("SELECT id FROM items ORDER BY id").compactMap { $0.first?.integer }
        return try #require(service == "mail" ? ids.first : ids.dropFirst().first)
    }

    private func storedDigest(_ fixture: StoreFixture) throws -> [UInt8] {
        try fixture.raw().blob("SELECT value FROM rows_digest WHERE id = 1")
    }

    @Test(arguments: [UInt8(3), StoreHeader.currentVersion])
    func anOlderCiphertextOfOneRowPutBackIsDamage(format: UInt8) throws {
        let fixture = StoreFixture(format: format)
        let store = try fixture.open()
        try store.add(mail, data: secret("OLD-REFRESH"))
        try store.add(web, data: secret("WEB"))
        let id = try rowID(fixture, service: "mail")
        let old = try row(fixture, id)
        try store.update(mail, attributes: nil, data: secret("NEW-REFRESH"))
        try store.add(later, data: secret("LATER"))
        #expect(try store.findString(mail) == "NEW-REFRESH")
        // The older ciphertext put back, every other row and the digest as they are now.
        try fixture.raw().query("UPDATE items SET attrs = ?, data = ? WHERE id = ?", [old[5], old[6], .integer(id)])

        // Through the handle that was open (the edit is another connection's commit), and a new one.
        for handle in [store, try fixture.open()] {
            if format == 3 {
                // The digest counts no ciphertext: the old token comes back, and verify finds nothing.
                #expect(try handle.findString(mail) == "OLD-REFRESH")
                #expect(try handle.verify().isSound)
            } else {
                #expect(throwsIntegrityFailure { _ = try handle.findString(mail) })
                // Every kind of find: a list, a scan by attribute, a list that is whole by unique key.
                #expect(throwsIntegrityFailure { _ = try handle.find(.genericPassword(), limit: .all, returning: .data) })
                #expect(throwsIntegrityFailure { _ = try handle.find(.genericPassword(account: "alice"), limit: .one, returning: .data) })
                #expect(throwsIntegrityFailure { _ = try handle.find(mail, limit: .all, returning: .data) })
                #expect(try !handle.verify().isSound)
                #expect(throwsIntegrityFailure { try handle.update(mail, attributes: nil, data: secret("N")) })
            }
        }
    }

    @Test(arguments: [UInt8(3), StoreHeader.currentVersion])
    func aDeletedRowPutBackWithItsOldDigestIsDamage(format: UInt8) throws {
        let fixture = StoreFixture(format: format)
        let store = try fixture.open()
        try store.add(mail, data: secret("MAIL"))
        try store.add(web, data: secret("WEB"))
        let id = try rowID(fixture, service: "web")
        let deleted = try row(fixture, id)
        let digestBefore = try storedDigest(fixture)
        try store.delete(web)
        // Another row written in between, by a write that changes its data alone.
        try store.update(mail, attributes: nil, data: secret("MAIL2"))
        try fixture.raw().query("INSERT INTO items (id, class, grp, uniq, prim, attrs, data) VALUES (?, ?, ?, ?, ?, ?, ?)", deleted)
        try fixture.raw().query("UPDATE rows_digest SET value = ? WHERE id = 1", [.blob(digestBefore)])

        for handle in [store, try fixture.open()] {
            if format == 3 {
                // The old digest still matches: the deleted item is back, and verify finds nothing.
                #expect(try handle.findString(web) == "WEB")
                #expect(try handle.verify().isSound)
            } else {
                #expect(throwsIntegrityFailure { _ = try handle.findString(web) })
                #expect(throwsIntegrityFailure { _ = try handle.findString(mail) })
                #expect(try !handle.verify().isSound)
            }
        }
    }

    /// A format-3 store moves to format 4 by a key rotation (every row and digest is sealed again), and
    /// the older ciphertext of one row put back is then damage; an older ciphertext from before the
    /// rotation does not even open.
    @Test func aRotatedFormat3StoreCatchesAnOlderCiphertextPutBack() throws {
        var fixture = StoreFixture()
        fixture.format = 3
        do {
            let store = try fixture.open()
            try store.add(mail, data: secret("FIRST"))
            try store.add(web, data: secret("WEB"))
            #expect(try store.rotateKey(to: .keyFile(path: fixture.keyFile)) == 2)
        }
        #expect(try fixture.raw().blob("SELECT header FROM meta WHERE id = 1")[3] == StoreHeader.currentVersion)
        let store = try fixture.open()
        let id = try rowID(fixture, service: "mail")
        try store.update(mail, attributes: nil, data: secret("OLD-REFRESH"))
        let old = try row(fixture, id)
        try store.update(mail, attributes: nil, data: secret("NEW-REFRESH"))
        try fixture.raw().query("UPDATE items SET attrs = ?, data = ? WHERE id = ?", [old[5], old[6], .integer(id)])
        #expect(throwsIntegrityFailure { _ = try store.findString(mail) })
        #expect(try !fixture.open().verify().isSound)
    }

    /// Each write of a format-4 store keeps its digest current, data-only updates included, with two
    /// row hashes per row changed: the rows still match after every kind of write.
    @Test func everyKindOfWriteKeepsTheDigestCurrent() throws {
        let fixture = StoreFixture()
        let store = try fixture.open()
        try store.add(mail, data: secret("A"))
        try store.add(web, data: secret("B"))
        try store.add(later, data: secret("C"))
        try store.update(mail, attributes: nil, data: secret("A2"))
        try store.update(web, attributes: .genericPassword(label: "labelled"), data: nil)
        try store.update(later, attributes: .genericPassword(account: "dave"), data: secret("C2"))
        _ = try store.addOrUpdate(mail, data: secret("A3"))
        try store.delete(web)
        try store.delete(.genericPassword(service: "later"))
        #expect(try store.verify().isSound)
        let reopened = try fixture.open()
        #expect(try reopened.verify().isSound)
        #expect(try reopened.findString(mail) == "A3")
    }
}
