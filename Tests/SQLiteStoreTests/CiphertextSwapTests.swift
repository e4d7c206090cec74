import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore
import RawSQLite
import TestSupport
import Testing

/// Cut-and-paste attacks on rows: every ciphertext is bound to its row, class, store and indexes, so a
/// moved, swapped or relabelled cell is an error, never another item's secret.
@Suite struct CiphertextSwapTests {
    var fixture = StoreFixture()
    private let access = ItemAttributes.genericPassword(service: "oauth", account: "access-token")
    private let refresh = ItemAttributes.genericPassword(service: "oauth", account: "refresh-token")
    private let other = ItemAttributes.genericPassword(service: "mail", account: "alice")

    /// The three items, added in this order, so their row ids are 1, 2 and 3.
    private func createStore(groups: [String] = ["default"]) throws -> (access: Int64, refresh: Int64, other: Int64) {
        do {
            let store = try fixture.open(groups: groups)
            try store.add(access, data: secret("ACCESS-SECRET"))
            try store.add(try refresh.setting(.accessGroup, to: .string(groups.last!)), data: secret("REFRESH-SECRET"))
            try store.add(other, data: secret("MAIL-SECRET"))
            try store.checkpoint()
        }
        let ids = try fixture.raw().query("SELECT id FROM items ORDER BY id").map { $0[0] }
        #expect(ids == [.integer(1), .integer(2), .integer(3)])
        return (1, 2, 3)
    }

    /// Every read of every item: each must throw or return exactly its own values.
    private func readsNeverReturnAnotherItem(groups: [String] = ["default"]) throws -> Int {
        let store: SQLiteSecureItemStore
        do {
            store = try fixture.open(groups: groups)
        } catch {
            return 1
        }
        let expected = [
            "access-token": "ACCESS-SECRET", "refresh-token": "REFRESH-SECRET", "alice": "MAIL-SECRET",
        ]
        var failures = 0
        let queries: [ItemAttributes] = [
            access, refresh, other, .genericPassword(service: "oauth"), .genericPassword(account: "refresh-token"),
            .genericPassword(),
        ]
        for query in queries {
            for parts: ItemParts in [.data, .attributes, .all] {
                do {
                    for item in try store.find(query, limit: .all, returning: parts) {
                        if let attributes = item.attributes {
                            #expect(attributes.matches(query))
                            if let data = item.data {
                                #expect(data.text == expected[attributes.string(.account) ?? ""])
                            }
                        } else if let account = query.string(.account) {
                            #expect(item.text == expected[account])
                        } else {
                            #expect(Set(expected.values).contains(item.text ?? ""))
                        }
                    }
                } catch {
                    failures += 1
                }
            }
        }
        return failures
    }

    private func expectIntegrityFailure(
        _ query: ItemAttributes, returning parts: ItemParts = .all, groups: [String] = ["default"],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let store = try fixture.open(groups: groups)
        let error = #expect(throws: SecureStoreError.self, sourceLocation: sourceLocation) {
            try store.find(query, limit: .one, returning: parts)
        }
        #expect(error?.isIntegrityFailure == true, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    @Test func swappingDataBetweenTheAccessAndRefreshTokensIsAnIntegrityFailure() throws {
        let ids = try createStore()
        try fixture.raw().swapItemColumn("data", ids.access, ids.refresh)
        try expectIntegrityFailure(access, returning: .data)
        try expectIntegrityFailure(refresh, returning: .data)
        // The untouched item authenticates, but the rows no longer match their digest, which counts
        // ciphertexts (format 4) and cannot say which row moved: damage, as every find now is.
        #expect(throwsIntegrityFailure { _ = try fixture.open().findString(other) })
        let report = try fixture.open().verify()
        #expect(report.damagedItems == 2)
        #expect(report.soundItems == 1)
        #expect(try readsNeverReturnAnotherItem() > 0)
    }

    /// A cell of format-1 rows (a joint row's `attrs` is empty, its attributes in `data`, whose swaps
    /// the other tests make): run on a store of that format.
    @Test func swappingAttributesBetweenRowsIsAnIntegrityFailure() throws {
        var formatOne = self
        formatOne.fixture.format = 1
        try formatOne.swapAttributes()
    }

    private func swapAttributes() throws {
        let ids = try createStore()
        try fixture.raw().swapItemColumn("attrs", ids.access, ids.other)
        try expectIntegrityFailure(access, returning: .attributes)
        try expectIntegrityFailure(other, returning: .all)
        try expectIntegrityFailure(.genericPassword(account: "alice"), returning: .data)
        #expect(try fixture.open().verify().damagedItems == 2)
        _ = try readsNeverReturnAnotherItem()
    }

    @Test func swappingBothCiphertextsTogetherIsStillAnIntegrityFailure() throws {
        let ids = try createStore()
        let raw = try fixture.raw()
        try raw.swapItemColumn("data", ids.access, ids.refresh)
        try raw.swapItemColumn("attrs", ids.access, ids.refresh)
        try expectIntegrityFailure(access)
        try expectIntegrityFailure(refresh)
        _ = try readsNeverReturnAnotherItem()
    }

    @Test(arguments: ["uniq", "prim"])
    func swappingIndexCellsBetweenRowsNeverRevealsTheOtherSecret(column: String) throws {
        let ids = try createStore()
        try fixture.raw().swapItemColumn(column, ids.access, ids.other)
        #expect(try readsNeverReturnAnotherItem() > 0)
        #expect(try fixture.open().verify().damagedItems == 2)
    }

    @Test func aDeleteAfterAUniqueCellSwapNeverRemovesTheOtherItem() throws {
        let ids = try createStore()
        try fixture.raw().swapItemColumn("uniq", ids.refresh, ids.other)
        let store = try fixture.open()
        #expect(throws: SecureStoreError.self) { try store.delete(refresh) }
        let remaining = try fixture.raw().query("SELECT id FROM items ORDER BY id").map { $0[0] }
        #expect(remaining == [.integer(1), .integer(2), .integer(3)])
    }

    @Test func swappingGroupCellsBetweenRowsNeverRevealsTheOtherSecret() throws {
        let ids = try createStore(groups: ["a", "b"])
        try fixture.raw().swapItemColumn("grp", ids.access, ids.refresh)
        #expect(try readsNeverReturnAnotherItem(groups: ["a", "b"]) > 0)
        #expect(try readsNeverReturnAnotherItem(groups: ["a"]) > 0)
        #expect(try readsNeverReturnAnotherItem(groups: ["b"]) >= 0)
        #expect(try fixture.open(groups: ["a"]).verify().damagedItems == 2)
    }

    @Test func copyingAllCellsOfOneRowOverAnotherIsAnIntegrityFailure() throws {
        let ids = try createStore()
        let raw = try fixture.raw()
        let source = try raw.query(
            "SELECT grp, uniq, prim, attrs, data FROM items WHERE id = ?", [.integer(ids.refresh)])[0]
        try raw.query("DELETE FROM items WHERE id = ?", [.integer(ids.refresh)])
        try raw.query(
            "UPDATE items SET grp = ?, uniq = ?, prim = ?, attrs = ?, data = ? WHERE id = ?",
            source + [.integer(ids.access)])
        try expectIntegrityFailure(refresh)
        try expectIntegrityFailure(refresh, returning: .data)
        #expect(try readsNeverReturnAnotherItem() > 0)
    }

    @Test func movingARowToAnotherIDIsAnIntegrityFailure() throws {
        let ids = try createStore()
        try fixture.raw().query("UPDATE items SET id = 99 WHERE id = ?", [.integer(ids.access)])
        try expectIntegrityFailure(access)
        try expectIntegrityFailure(access, returning: .data)
        // The rows no longer match their digest: every find is damage (as above).
        #expect(throwsIntegrityFailure { _ = try fixture.open().findString(refresh) })
    }

    @Test(arguments: [Int64(2), 5, 0, 300, -1])
    func changingAnItemsClassNeverRevealsItAsAnotherClass(newClass: Int64) throws {
        let ids = try createStore()
        try fixture.raw().setItemColumn("class", of: ids.access, to: .integer(newClass))
        let store = try fixture.open()
        // The generic password is gone from generic-password queries, or they fail…
        do {
            let found = try store.find(.genericPassword(service: "oauth"), limit: .all, returning: .all)
            #expect(found.allSatisfy { $0.string(.account) == "refresh-token" })
        } catch {}
        // …and the class it now claims never returns it.
        for itemClass in ItemClass.allCases where itemClass != .genericPassword {
            do {
                let found = try store.find(ItemAttributes(itemClass, [:]), limit: .all, returning: .data)
                Issue.record("a \(itemClass.name) query returned \(found.count) item(s)")
            } catch {
                #expect(error == .itemNotFound || error.isIntegrityFailure)
            }
        }
        let report = try store.verify()
        #expect(report.damagedItems == 1)
        #expect(report.soundItems == 2)
        switch store.lookup(access, returning: .data) {
        case .damaged, .notFound: break
        case .found, .locked: Issue.record("an item with a changed class must read as damaged or absent")
        }
    }

    @Test func dataCopiedFromAnotherStoreWithTheSameKeyFileIsAnIntegrityFailure() throws {
        let ids = try createStore()
        let otherPath = fixture.directory.file("other.db")
        do {
            let otherStore = try SQLiteSecureItemStore.open(
                at: otherPath, keySource: .keyFile(path: fixture.keyFile),
                options: StoreOptions(passphraseCost: .interactive))
            try otherStore.add(access, data: secret("OTHER-STORE-SECRET"))
            try otherStore.checkpoint()
        }
        let otherRaw = try RawDatabase(path: otherPath)
        let foreign = try otherRaw.query("SELECT attrs, data FROM items WHERE id = 1")[0]
        let raw = try fixture.raw()
        try raw.setItemColumn("data", of: ids.access, to: foreign[1])
        try expectIntegrityFailure(access, returning: .data)
        try raw.setItemColumn("attrs", of: ids.access, to: foreign[0])
        try expectIntegrityFailure(access, returning: .attributes)
        #expect(try readsNeverReturnAnotherItem() > 0)
    }

    @Test func aTruncatedOrEmptyCiphertextIsAnIntegrityFailure() throws {
        let ids = try createStore()
        let raw = try fixture.raw()
        let data = try raw.blob("SELECT data FROM items WHERE id = ?", [.integer(ids.access)])
        for edited in [Array(data.dropLast()), Array(data.prefix(40)), [], Array(data.prefix(24))] {
            try raw.setItemColumn("data", of: ids.access, to: .blob(edited))
            try expectIntegrityFailure(access, returning: .data)
        }
        try raw.setItemColumn("data", of: ids.access, to: .text("not a blob"))
        try expectIntegrityFailure(access, returning: .data)
        // A joint row given an attributes cell reads as a format-1 row, whose attributes do not open.
        try raw.setItemColumn("attrs", of: ids.refresh, to: .blob(Array(repeating: 0xAB, count: 64)))
        try expectIntegrityFailure(refresh, returning: .attributes)
    }
}
