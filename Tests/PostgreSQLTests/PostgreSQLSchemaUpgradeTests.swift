import Data
import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore
import Synchronization
import TestSupport
import Testing

/// The store's tables are upgraded from version 1 (one rows digest for the store) to version 2 (one
/// per access group) by the first open of newer code, in one transaction, once however many instances
/// open at once; damage found first stops the upgrade; a newer version than the code knows is refused.
@Suite(.serialized) struct PostgreSQLSchemaUpgradeTests {
    /// A version-1 store with items in two groups; returns their accounts by group. Of format 2: version
    /// 1 of the tables is older than format 3, whose digests are sealed.
    private func makeVersion1Store(_ test: TestStore) throws -> [String: [String]] {
        let store = try test.open(groups: ["tenant-a", "tenant-b"], format: 2)
        var accounts: [String: [String]] = [:]
        for index in 0..<6 {
            let group = index % 2 == 0 ? "tenant-a" : "tenant-b"
            let attributes = ItemAttributes.genericPassword(service: "api", account: "user\(index)", accessGroup: group)
            try store.add(attributes, data: secret("secret-\(index)"))
            accounts[group, default: []].append("user\(index)")
        }
        // An update and a delete, so versions and ids are not just 1…n.
        try store.update(.genericPassword(service: "api", account: "user0"), attributes: nil, data: secret("secret-0b"))
        #expect(try store.delete(.genericPassword(service: "api", account: "user5")) == 1)
        accounts["tenant-b"]?.removeAll { $0 == "user5" }
        try Version1Store.downgrade(test)
        return accounts
    }

    private func schemaVersion(_ test: TestStore) throws -> Int32 {
        try test.sql().query("SELECT schema_version FROM \(test.schema).meta").int32(0, 0)
    }

    @Test func aVersion1StoreIsUpgradedAndEveryItemReadsBack() throws {
        let test = TestStore()
        let accounts = try makeVersion1Store(test)
        #expect(try schemaVersion(test) == 1)
        let store = try test.open(groups: ["tenant-a", "tenant-b"])
        #expect(try schemaVersion(test) == 2)
        let old = try test.sql().query(
            "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = 'rows_digest'",
            [.text(test.schema)])
        #expect(try old.int64(0, 0) == 0, "the old digest table is gone")
        for (group, names) in accounts {
            for account in names {
                let query = ItemAttributes.genericPassword(service: "api", account: account, accessGroup: group)
                let expected = account == "user0" ? "secret-0b" : "secret-\(account.dropFirst(4))"
                #expect(try store.find(query, limit: .one, returning: .data).first?.data?.revealedString() == expected)
            }
        }
        #expect(throws: SecureStoreError.itemNotFound) {
            try store.find(.genericPassword(service: "api", account: "user5"), limit: .one, returning: .data)
        }
        #expect(try store.verify().isSound)
        #expect(try test.sql().query("SELECT count(*) FROM \(test.schema).group_digests").int64(0, 0) == 2)
        // Writes go on: new rows take ids past every old one, and the store stays sound.
        try store.add(.genericPassword(service: "api", account: "new"), data: secret("n"))
        try store.update(.genericPassword(service: "api", account: "user1"), attributes: nil, data: secret("u1"))
        #expect(try store.verify().isSound)
        #expect(try test.open(groups: ["tenant-b"]).find(
            .genericPassword(service: "api", account: "user1"), limit: .one, returning: .data
        ).first?.data?.revealedString() == "u1")
    }

    @Test func instancesOpeningAtOnceUpgradeOnce() throws {
        let test = TestStore()
        let accounts = try makeVersion1Store(test)
        let failures = Mutex<[String]>([])
        let threads = (0..<4).map { _ in
            Thread {
                do {
                    let store = try test.open(groups: ["tenant-a", "tenant-b"])
                    _ = try store.find(.genericPassword(service: "api"), limit: .all, returning: .attributes)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        threads.forEach { $0.start() }
        while threads.contains(where: { !$0.isFinished }) { Thread.sleep(forTimeInterval: 0.01) }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(try schemaVersion(test) == 2)
        let store = try test.open(groups: ["tenant-a", "tenant-b"])
        let count = accounts.values.map(\.count).reduce(0, +)
        #expect(try store.find(.genericPassword(service: "api"), limit: .all, returning: .data).count == count)
        #expect(try store.verify().isSound)
    }

    @Test func damageFoundBeforeTheUpgradeStopsIt() throws {
        let test = TestStore()
        _ = try makeVersion1Store(test)
        try test.sql().execute("DELETE FROM \(test.schema).items WHERE id = (SELECT max(id) FROM \(test.schema).items)")
        do {
            _ = try test.open(groups: ["tenant-a", "tenant-b"])
            Issue.record("a damaged store was upgraded")
        } catch {
            #expect((error as? SecureStoreError)?.isIntegrityFailure == true, "\(error)")
        }
        #expect(try schemaVersion(test) == 1, "nothing was changed")
    }

    @Test func aNewerSchemaVersionIsRefused() throws {
        let test = TestStore()
        try test.open().add(.genericPassword(service: "api", account: "alice"), data: secret("a"))
        try test.sql().execute("UPDATE \(test.schema).meta SET schema_version = 99")
        do {
            _ = try test.open()
            Issue.record("a store of a newer version was opened")
        } catch {
            #expect((error as? SecureStoreError)?.isNewerFormat == true, "\(error)")
            #expect("\(error)".contains("99"), "\(error)")
        }
    }
}
