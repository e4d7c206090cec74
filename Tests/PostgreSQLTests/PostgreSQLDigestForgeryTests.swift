import Data
import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore
import TestSupport
import Testing

/// Someone with SQL access who read a group's digest row before and after one of the store's writes
/// (from the dead row versions the table keeps until vacuum, the write-ahead log, two backups, or by
/// watching) learns, from a plain digest, the hashes that write changed: with them, they can delete the
/// row it added, or put back the copy an update replaced, at any later time, and fix the digest to
/// match. A store of format 3 seals its digests, and the forged digest is damage; the same forgery
/// against a format-2 store, whose digests are plain, succeeds, which shows the attack is the real one.
@Suite(.serialized) struct PostgreSQLDigestForgeryTests {
    private let mail = ItemAttributes.genericPassword(service: "mail", account: "alice")
    private let web = ItemAttributes.genericPassword(service: "web", account: "bob")
    private let later = ItemAttributes.genericPassword(service: "later", account: "carol")

    private func digest(_ test: TestStore) throws -> [UInt8] {
        try test.sql().query("SELECT value FROM \(test.schema).group_digests").bytes(0, 0)
    }

    private func setDigest(_ test: TestStore, _ value: [UInt8]) throws {
        _ = try test.sql().query("UPDATE \(test.schema).group_digests SET value = $1", [.bytes(value)])
    }

    @Test(arguments: [UInt8(2), 3])
    func aRowDeletedWithADigestForgedFromItsHistoryIsDamage(format: UInt8) throws {
        let test = TestStore()
        let store = try test.open(format: format)
        try store.add(mail, data: secret("MAIL"))
        let before = try digest(test)
        try store.add(web, data: secret("WEB"))
        let after = try digest(test)
        let webRow = try test.sql().query("SELECT max(id) FROM \(test.schema).items").int64(0, 0)
        try store.add(later, data: secret("LATER"))
        try store.update(mail, attributes: nil, data: secret("MAIL2"))
        let current = try digest(test)
        _ = try test.sql().query("DELETE FROM \(test.schema).items WHERE id = $1", [.int64(webRow)])
        try setDigest(test, DigestForgery.removing(learnedFrom: before, after, from: current))

        // Through the handle that was open, and through a new one.
        for handle in [store, try test.open()] {
            if format == 2 {
                #expect(throws: SecureStoreError.itemNotFound) { try handle.findString(web) }
                #expect(try handle.verify().isSound)
            } else {
                #expect(throwsIntegrityFailure { _ = try handle.findString(web) })
                #expect(try !handle.verify().isSound)
                #expect(throwsIntegrityFailure { try handle.add(.genericPassword(service: "new"), data: secret("N")) })
            }
            #expect(try handle.findString(later) == "LATER")
        }
    }

    @Test(arguments: [UInt8(2), 3])
    func anOlderCopyOfARowPutBackWithADigestForgedFromItsHistoryIsDamage(format: UInt8) throws {
        let test = TestStore()
        let store = try test.open(format: format)
        try store.add(mail, data: secret("OLD"))
        let items = "\(test.schema).items"
        let old = try test.sql().query("SELECT id, attrs, data, ver FROM \(items)")
        let (id, attributes, data, version) = (
            try old.int64(0, 0), try old.bytes(0, 1), try old.bytes(0, 2), try old.int64(0, 3)
        )
        let before = try digest(test)
        try store.update(mail, attributes: nil, data: secret("NEW"))
        let after = try digest(test)
        try store.add(later, data: secret("LATER"))
        let current = try digest(test)
        _ = try test.sql().query(
            "UPDATE \(items) SET attrs = $2, data = $3, ver = $4 WHERE id = $1",
            [.int64(id), .bytes(attributes), .bytes(data), .int64(version)])
        try setDigest(test, DigestForgery.undoing(learnedFrom: before, after, from: current))

        let reopened = try test.open()
        // A read that finds its item does not consult the digest (docs/postgresql.md): the old value
        // comes back until the rows are checked, which format 3 then finds damaged.
        #expect(try reopened.findString(mail) == "OLD")
        #expect(try reopened.verify().isSound == (format == 2))
        if format == 3 {
            #expect(throwsIntegrityFailure { try reopened.add(.genericPassword(service: "new"), data: secret("N")) })
        }
    }

    @Test func aGroupsDigestCannotStandInForAnothers() throws {
        let test = TestStore()
        let store = try test.open(groups: ["tenant-a", "tenant-b"])
        try store.add(.genericPassword(service: "api", account: "a", accessGroup: "tenant-a"), data: secret("A"))
        try store.add(.genericPassword(service: "api", account: "b", accessGroup: "tenant-b"), data: secret("B"))
        // Both groups emptied; one group's sealed digest of no rows copied over the other's.
        _ = try store.delete(.genericPassword(service: "api", account: "a", accessGroup: "tenant-a"))
        _ = try store.delete(.genericPassword(service: "api", account: "b", accessGroup: "tenant-b"))
        let sql = try test.sql()
        _ = try sql.query(
            "UPDATE \(test.schema).group_digests SET value = (SELECT value FROM \(test.schema).group_digests "
                + "ORDER BY grp LIMIT 1)")
        #expect(try !test.open(groups: ["tenant-a", "tenant-b"]).verify().isSound)
    }

    /// A digest table dropped (the rows then have nothing to be checked against) is tampering, named
    /// as such (exit 65 in the app), not a storage failure: through the handle that was open, and by a
    /// new one. Nothing is written, and no item is answered "not found".
    @Test func aDroppedGroupDigestTableIsDamage() throws {
        let test = TestStore()
        let store = try test.open()
        try store.add(mail, data: secret("MAIL"))
        _ = try test.sql().query("DROP TABLE \(test.schema).group_digests")
        #expect(throwsIntegrityFailure { try store.add(web, data: secret("WEB")) })
        #expect(throwsIntegrityFailure { _ = try store.findString(web) })
        #expect(throwsIntegrityFailure { _ = try test.open().findString(web) })
        #expect(try test.sql().query("SELECT count(*) FROM \(test.schema).items").int64(0, 0) == 1)
    }

    /// The registry is read when a group is first used (made, or found without a digest row) and by
    /// `verify`: dropped, each of those is damage, and no group is made.
    @Test func aDroppedGroupRegistryIsDamage() throws {
        let test = TestStore()
        let store = try test.open(groups: ["tenant-a", "tenant-b"])
        try store.add(.genericPassword(service: "api", accessGroup: "tenant-a"), data: secret("A"))
        _ = try test.sql().query("DROP TABLE \(test.schema).group_registry")
        let tenantB = ItemAttributes.genericPassword(service: "api", accessGroup: "tenant-b")
        #expect(throwsIntegrityFailure { try store.add(tenantB, data: secret("B")) })
        #expect(throwsIntegrityFailure { _ = try test.open(groups: ["tenant-b"]).findString(tenantB) })
        #expect(try !test.open(groups: ["tenant-a", "tenant-b"]).verify().isSound)
        #expect(try test.sql().query("SELECT count(*) FROM \(test.schema).group_digests").int64(0, 0) == 1)
    }

    /// Salvage, too, checks the groups against their registry: a whole tenant deleted (its rows and its
    /// digest row) is not taken for a store that never had it. A sound store comes back complete.
    @Test func salvageSeesAWholeGroupGoneThroughTheRegistry() throws {
        let test = TestStore()
        let store = try test.open(groups: ["tenant-a", "tenant-b"])
        try store.add(.genericPassword(service: "api", account: "a", accessGroup: "tenant-a"), data: secret("A"))
        try store.add(.genericPassword(service: "api", account: "b", accessGroup: "tenant-b"), data: secret("B"))
        let salvage = { () throws -> SalvageResult in
            try StoreSalvage.recover(
                from: try PostgreSQLSalvageSource(uri: try TestServer.uri(), schema: test.schema), keySource: .key(test.key))
        }
        let sound = try salvage()
        #expect(sound.isComplete && sound.items.count == 2)
        let sql = try test.sql()
        let group = try sql.query("SELECT grp FROM \(test.schema).items ORDER BY id LIMIT 1").bytes(0, 0)
        _ = try sql.query("DELETE FROM \(test.schema).items WHERE grp = $1", [.bytes(group)])
        _ = try sql.query("DELETE FROM \(test.schema).group_digests WHERE grp = $1", [.bytes(group)])
        let damaged = try salvage()
        #expect(damaged.items.count == 1)
        #expect(!damaged.matchesDigest && !damaged.isComplete)
    }
}
