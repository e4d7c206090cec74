import Data
import Domain
import Foundation
import RawSQLite
import StoreCore
import TestSupport
import Testing

/// Someone who can write the file and saw the rows digest before and after a write (two backups, say)
/// learns, from a plain digest, the keyed hash of the row that write added. With it, they can delete
/// that row at any later time and fix the digest to match, so that the item reads as "not found". (An
/// older copy of an updated row put back is the PostgreSQL store's case, whose rows carry versions:
/// `PostgreSQLDigestForgeryTests`.) A store of format 3 seals its digest, so two states of it
/// tell nothing about a row and a forged one is damage. The same forgery against a format-2 store,
/// whose digest is plain, succeeds: that is what shows the attack here is the real one.
@Suite struct DigestForgeryTests {
    private let mail = ItemAttributes.genericPassword(service: "mail", account: "alice")
    private let web = ItemAttributes.genericPassword(service: "web", account: "bob")
    private let later = ItemAttributes.genericPassword(service: "later", account: "carol")

    private func storedDigest(_ fixture: StoreFixture) throws -> [UInt8] {
        try fixture.raw().blob("SELECT value FROM rows_digest WHERE id = 1")
    }

    @Test(arguments: [UInt8(2), 3])
    func aRowDeletedWithADigestForgedFromItsHistoryIsDamage(format: UInt8) throws {
        let fixture = StoreFixture(format: format)
        let store = try fixture.open()
        try store.add(mail, data: secret("MAIL"))
        let before = try storedDigest(fixture)
        try store.add(web, data: secret("WEB"))
        let after = try storedDigest(fixture)
        let webRow = try #require(try fixture.raw().value("SELECT max(id) FROM items").integer)
        // Later writes: the forgery does not need to come right after the write it learned from.
        try store.add(later, data: secret("LATER"))
        try store.update(mail, attributes: nil, data: secret("MAIL2"))
        let current = try storedDigest(fixture)
        try fixture.raw().query("DELETE FROM items WHERE id = ?", [.integer(webRow)])
        let forged = DigestForgery.removing(learnedFrom: before, after, from: current)
        try fixture.raw().query("UPDATE rows_digest SET value = ? WHERE id = 1", [.blob(forged)])

        let reopened = try fixture.open()
        if format == 2 {
            // The plain digest was fooled: the item is "not found", and verify finds nothing wrong.
            #expect(throws: SecureStoreError.itemNotFound) { try reopened.findString(web) }
            #expect(try reopened.verify().isSound)
        } else {
            #expect(throwsIntegrityFailure { _ = try reopened.findString(web) })
            #expect(try !reopened.verify().isSound)
            #expect(throwsIntegrityFailure { try reopened.add(.genericPassword(service: "new"), data: secret("N")) })
        }
        // The items not touched read as before.
        #expect(try reopened.findString(mail) == "MAIL2")
        #expect(try reopened.findString(later) == "LATER")
    }

    /// The plain digest of no rows is a constant (24 zero bytes): with it, every row can be deleted
    /// without knowing anything of the store. A format-3 store takes it for what it is: not its digest.
    @Test(arguments: [UInt8(2), 3])
    func everyRowDeletedWithThePlainDigestOfNoRowsIsDamage(format: UInt8) throws {
        let fixture = StoreFixture(format: format)
        let store = try fixture.open()
        try store.add(mail, data: secret("MAIL"))
        try store.add(web, data: secret("WEB"))
        try fixture.raw().query("DELETE FROM items")
        try fixture.raw().query("UPDATE rows_digest SET value = zeroblob(24) WHERE id = 1")
        for handle in [store, try fixture.open()] {
            if format == 2 {
                #expect(throws: SecureStoreError.itemNotFound) { try handle.findString(web) }
                #expect(throws: SecureStoreError.itemNotFound) { try handle.find(.genericPassword(), limit: .all) }
                #expect(try handle.verify().isSound)
            } else {
                #expect { try handle.findString(web) } throws: { error in
                    guard case .integrityFailure(let reason) = error as? SecureStoreError else { return false }
                    return reason.contains("not sealed")
                }
                #expect(try !handle.verify().isSound)
            }
        }
    }
}
