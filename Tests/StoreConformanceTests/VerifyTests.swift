import Data
import Domain
import TestSupport
import Testing

/// `verify()`: counts sound items across every group, and refuses while locked. (Damaged rows in a
/// SQLite file: SQLiteStoreTests' VerifyDamageTests.)
@Suite struct VerifyTests {
    private let secrets = ["VERIFY-SECRET-0a1b", "VERIFY-SECRET-2c3d", "VERIFY-SECRET-4e5f"]

    private func createStore(_ fixture: ConformanceFixture) throws {
        let a = try fixture.open(groups: ["a"])
        let b = try fixture.open(groups: ["b"])
        try a.add(.genericPassword(service: "VERIFY-SERVICE", account: "0"), data: secret(secrets[0]))
        try b.add(.internetPassword(server: "VERIFY-SERVER", account: "1"), data: secret(secrets[1]))
        try a.add(.key(applicationTag: Array("VERIFY-TAG".utf8)), data: secret(secrets[2]))
    }

    @Test(arguments: StoreAdapter.all)
    func anEmptyStoreIsSound(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let report = try fixture.open().verify()
        #expect(report.soundItems == 0)
        #expect(report.damagedItems == 0)
        #expect(report.databaseCheck == "ok")
        #expect(report.isSound)
    }

    @Test(arguments: StoreAdapter.all)
    func aSoundStoreReportsEveryItemOfEveryGroupSound(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        try createStore(fixture)
        let report = try fixture.open(groups: ["a"]).verify()
        #expect(report.soundItems == 3)
        #expect(report.damagedItems == 0)
        #expect(report.databaseCheck == "ok")
        #expect(report.isSound)
    }

    @Test(arguments: StoreAdapter.all)
    func verifyOfALockedStoreIsLocked(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        store.lock()
        #expect(throws: SecureStoreError.locked) { try store.verify() }
    }
}
