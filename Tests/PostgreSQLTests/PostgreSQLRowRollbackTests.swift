import Data
import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore
import TestSupport
import Testing

/// A role with SQL access to the rows (not the key) puts back the past of one row while every other
/// row keeps its current value: the whole row as it was before an update (ciphertext and version), or
/// a deleted item's row with its group's digest row from before the delete. Every row carries a
/// version, bound into its ciphertext and its group's digest, so the group's rows no longer match
/// their digest: `verify` says so, and so does every write, list or "not found" of the group. A find
/// by unique key does not consult the digest (docs/postgresql.md): the lookup of the item put back
/// returns it until the rows are checked; that remaining limit is asserted here too, so that closing
/// it changes this test. (The SQLite store's find checks: `RowRollbackTests`.)
@Suite(.serialized) struct PostgreSQLRowRollbackTests {
    private let mail = ItemAttributes.genericPassword(service: "mail", account: "alice")
    private let web = ItemAttributes.genericPassword(service: "web", account: "bob")
    private let later = ItemAttributes.genericPassword(service: "later", account: "carol")

    @Test func anOlderCopyOfOneRowPutBackIsDamage() throws {
        let test = TestStore()
        let store = try test.open()
        try store.add(mail, data: secret("OLD-REFRESH"))
        try store.add(web, data: secret("WEB"))
        let items = "\(test.schema).items"
        let old = try test.sql().query("SELECT id, attrs, data, ver FROM \(items) ORDER BY id LIMIT 1")
        let (id, attributes, data, version) = (
            try old.int64(0, 0), try old.bytes(0, 1), try old.bytes(0, 2), try old.int64(0, 3)
        )
        try store.update(mail, attributes: nil, data: secret("NEW-REFRESH"))
        _ = try test.sql().query(
            "UPDATE \(items) SET attrs = $2, data = $3, ver = $4 WHERE id = $1",
            [.int64(id), .bytes(attributes), .bytes(data), .int64(version)])

        for handle in [store, try test.open()] {
            #expect(try !handle.verify().isSound)
            #expect(throwsIntegrityFailure { _ = try handle.find(.genericPassword(), limit: .all) })
            #expect(throwsIntegrityFailure { try handle.add(later, data: secret("LATER")) })
        }
        // The remaining limit: a lookup of that one item, by a handle that has not checked the rows since.
        #expect(try test.open().findString(mail) == "OLD-REFRESH")
    }

    @Test func aDeletedRowPutBackWithItsGroupsOldDigestIsDamage() throws {
        let test = TestStore()
        let store = try test.open()
        try store.add(mail, data: secret("MAIL"))
        try store.add(web, data: secret("WEB"))
        let items = "\(test.schema).items"
        let digests = "\(test.schema).group_digests"
        let row = try test.sql().query("SELECT id, class, grp, uniq, prim, attrs, data, ver FROM \(items) ORDER BY id DESC LIMIT 1")
        let digestBefore = try test.sql().query("SELECT value FROM \(digests)").bytes(0, 0)
        _ = try store.delete(web)
        // Another row of the group written in between, by a write that changes its data alone.
        try store.update(mail, attributes: nil, data: secret("MAIL2"))
        _ = try test.sql().query(
            "INSERT INTO \(items) (id, class, grp, uniq, prim, attrs, data, ver) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            [
                .int64(try row.int64(0, 0)), .int64(try row.int64(0, 1)), .bytes(try row.bytes(0, 2)),
                .bytes(try row.bytes(0, 3)), .bytes(try row.bytes(0, 4)), .bytes(try row.bytes(0, 5)),
                .bytes(try row.bytes(0, 6)), .int64(try row.int64(0, 7)),
            ])
        _ = try test.sql().query("UPDATE \(digests) SET value = $1", [.bytes(digestBefore)])

        for handle in [store, try test.open()] {
            #expect(try !handle.verify().isSound)
            #expect(throwsIntegrityFailure { _ = try handle.find(.genericPassword(), limit: .all) })
            #expect(throwsIntegrityFailure { try handle.add(later, data: secret("LATER")) })
        }
    }
}
