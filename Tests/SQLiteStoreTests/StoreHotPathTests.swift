import Data
import Domain
import Foundation
import RawSQLite
import TestSupport
import Testing

/// The store's shortcuts keep its semantics: a delete by exact unique key in one statement, a
/// data-only update that rewrites the modification date in place, the remembered primary index, row
/// ids without AUTOINCREMENT (and an insert that guesses its id), and stores made with the earlier
/// schema.
@Suite struct StoreHotPathTests {
    let fixture = StoreFixture()
    private let access = ItemAttributes.genericPassword(service: "oauth", account: "access-token")
    private let refresh = ItemAttributes.genericPassword(service: "oauth", account: "refresh-token")

    private func itemCount() throws -> Int64 {
        try fixture.raw().value("SELECT count(*) FROM items").integer ?? -1
    }

    @Test(arguments: ["class", "grp"])
    func deletingAnEditedRowByUniqueKeyIsAnIntegrityFailureAndDeletesNothing(column: String) throws {
        do {
            let store = try fixture.open()
            try store.add(access, data: secret("A"))
            try store.add(refresh, data: secret("R"))
        }
        let edited: RawDatabase.Value = column == "class" ? .integer(2) : .blob(Array(repeating: 7, count: 16))
        try fixture.raw().setItemColumn(column, of: 1, to: edited)
        let store = try fixture.open()
        let error = #expect(throws: SecureStoreError.self) { try store.delete(access) }
        #expect(error?.isIntegrityFailure == true)
        // The rows no longer match their digest: no write builds on them (a delete by unique key could
        // otherwise remove whichever row now carries the key's cells).
        let other = #expect(throws: SecureStoreError.self) { try store.delete(refresh) }
        #expect(other?.isIntegrityFailure == true)
        #expect(try itemCount() == 2)
    }

    @Test func deletingByUniqueKeyInsideATransactionRollsBackWithIt() throws {
        let store = try fixture.open()
        try store.add(access, data: secret("A"))
        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try store.transaction { transaction in
                #expect(try transaction.delete(access) == 1)
                throw Abandon()
            }
        }
        #expect(try store.findString(access) == "A")
    }

    @Test func aDataOnlyUpdateKeepsEveryOtherAttribute() throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_700_000_000.5))
        let store = try fixture.open(now: clock.now)
        let labelled = try access.setting(.label, to: .string("Access token")).setting(.generic, to: .bytes([1, 2, 3]))
        try store.add(labelled, data: secret("old"))
        let before = try #require(try store.item(access).attributes)
        clock.advance(by: 61.25)
        #expect(try store.update(access, data: secret("new")) == 1)
        let after = try #require(try store.item(access).attributes)
        #expect(try store.findString(access) == "new")
        #expect(after[.modificationDate]?.dateValue == clock.date)
        let unchangedAfter = try after.setting(.modificationDate, to: nil)
        let unchangedBefore = try before.setting(.modificationDate, to: nil)
        #expect(unchangedAfter == unchangedBefore)
        #expect(try store.verify().isSound)
    }

    @Test func theRememberedPrimaryIndexTellsCanonicallyEqualStringsApart() throws {
        let store = try fixture.open()
        let precomposed = ItemAttributes.genericPassword(service: "caf\u{E9}", account: "a")
        let decomposed = ItemAttributes.genericPassword(service: "cafe\u{301}", account: "a")
        try store.add(precomposed, data: secret("precomposed"))
        try store.add(decomposed, data: secret("decomposed"))
        for _ in 0..<2 {
            #expect(try store.findString(.genericPassword(service: "caf\u{E9}")) == "precomposed")
            #expect(try store.findString(.genericPassword(service: "cafe\u{301}")) == "decomposed")
            #expect(try store.findString(decomposed) == "decomposed")
            #expect(try store.findString(precomposed) == "precomposed")
        }
    }

    @Test func rowIdsFollowTheNewestItem() throws {
        let store = try fixture.open()
        try store.add(access, data: secret("A"))
        try store.add(refresh, data: secret("R"))
        try store.delete(access)
        try store.add(.genericPassword(service: "mail", account: "alice"), data: secret("M"))
        let ids = try fixture.raw().query("SELECT id FROM items ORDER BY id").map { $0[0].integer }
        #expect(ids == [2, 3])
        #expect(try store.find(.genericPassword(), limit: .all, returning: .data).map(\.data?.text) == ["R", "M"])
    }

    @Test func anInsertAfterAnotherHandleInsertedTakesTheNextIdAndNeverOverwrites() throws {
        let first = try fixture.open()
        let second = try fixture.open()
        try first.add(access, data: secret("A"))
        try second.add(refresh, data: secret("R"))
        // `first` expects id 2, which `second` took: its insert must notice and use 3.
        try first.add(.genericPassword(service: "mail", account: "alice"), data: secret("M"))
        #expect(throws: SecureStoreError.duplicateItem) { try first.add(refresh, data: secret("again")) }
        let ids = try fixture.raw().query("SELECT id FROM items ORDER BY id").map { $0[0].integer }
        #expect(ids == [1, 2, 3])
        #expect(try first.find(.genericPassword(), limit: .all, returning: .data).map(\.data?.text) == ["A", "R", "M"])
        #expect(try second.verify().isSound)
    }

    @Test func aStoreWithTheEarlierSchemaKeepsWorking() throws {
        do {
            let store = try fixture.open()
            try store.add(access, data: secret("A"))
            try store.add(refresh, data: secret("R"))
            try store.delete(refresh)
        }
        // The schema of the first stores: AUTOINCREMENT, a unique `uniq`, a separate primary index.
        try FirstBuildSchema.apply(to: try fixture.raw())
        // AUTOINCREMENT remembers the deleted row's id.
        try fixture.raw().query("UPDATE sqlite_sequence SET seq = 2 WHERE name = 'items'")

        let store = try fixture.open()
        #expect(try store.findString(access) == "A")
        #expect(throws: SecureStoreError.duplicateItem) { try store.add(access, data: secret("again")) }
        try store.add(refresh, data: secret("R2"))
        #expect(try store.update(refresh, data: secret("R3")) == 1)
        #expect(try store.findString(.genericPassword(service: "oauth", account: "refresh-token")) == "R3")
        #expect(try store.find(.genericPassword(service: "oauth"), limit: .all).count == 2)
        #expect(try store.delete(access) == 1)
        #expect(try store.verify().isSound)
    }
}
