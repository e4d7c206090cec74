import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore
import TestSupport
import Testing

/// Damage stays local through scans too, in a store of format 3: with one page of the table failing
/// its checksum, a match-one query by attribute (account or label only: a scan of the class and group)
/// still answers for every item on a sound page, before and after the damaged one, while a list, a
/// "none", an update or a delete that the lost rows could have changed is damage. From format 4 a find
/// needs every row to match the digest, which counts each row's ciphertexts, so every find is damage
/// there (`LocalDamageTests` says why).
@Suite struct ScanDamageTests {
    private static let damage = SecureStoreError.integrityFailure(
        "a page of the database file is damaged (its checksum does not match)")

    /// A 200-item store of `format` with the page that holds item 101's data flipped in one bit.
    private func damagedStore(format: UInt8) throws -> SalvageFixture {
        var store = SalvageFixture(count: 200)
        store.fixture.format = format
        try store.create()
        let data = try store.fixture.raw().blob("SELECT data FROM items WHERE id = 101")
        try store.damage { bytes in
            let start = SalvageFixture.firstIndex(of: data, in: bytes)!
            bytes[start + data.count / 2] ^= 0x04
        }
        return store
    }

    @Test func aScanForOneItemAnswersForEveryItemOnASoundPageOfAFormat3Store() throws {
        let store = try damagedStore(format: 3)
        let handle = try store.fixture.open()
        var right = 0
        var lost: [Int] = []
        for index in 0..<200 {
            let item = SalvageFixture.values(index)
            for query in [ItemAttributes.genericPassword(account: item.account), .genericPassword(label: item.label)] {
                do {
                    let found = try handle.find(query, limit: .one, returning: .all)
                    #expect(found.count == 1)
                    #expect(found.first?.data?.text == item.secret, "item \(index) read wrong")
                    #expect(found.first?.attributes?.string(.account) == item.account)
                    #expect(index != 100, "the damaged item was answered")
                    right += 1
                } catch {
                    #expect(error == .integrityFailure("a page of the database file is damaged (its checksum does not match)"))
                    lost.append(index)
                }
            }
        }
        // One leaf page of items (about 13 at this size) is lost; the items past it still answer.
        #expect(right >= 2 * 170, "\(right / 2) of 200 items still read by a scan")
        #expect(lost.contains(100))
        #expect(lost.allSatisfy { (80..<120).contains($0) }, "items far from the damaged page lost: \(lost)")
        let last = SalvageFixture.values(199)
        #expect(try handle.find(.genericPassword(account: last.account), limit: .one, returning: .data).first?.data?.text == last.secret)
    }

    @Test func everyFindOfAFormat4StoreWithADamagedPageIsDamage() throws {
        let store = try damagedStore(format: StoreHeader.currentVersion)
        let handle = try store.fixture.open()
        for index in [0, 100, 199] {
            let item = SalvageFixture.values(index)
            for query in [
                ItemAttributes.genericPassword(account: item.account), .genericPassword(label: item.label),
                .genericPassword(service: item.service, account: item.account),
            ] {
                #expect(throws: Self.damage) { try handle.find(query, limit: .one, returning: .all) }
            }
        }
    }

    @Test func listsAbsencesAndWritesOverADamagedScanAreDamage() throws {
        let store = try damagedStore(format: 3)
        let handle = try store.fixture.open()
        let damage = Self.damage
        // Match-one by service: some item with that service answers, exactly as written.
        let one = try handle.find(.genericPassword(service: "service-1"), limit: .one, returning: .all)
        let account = try #require(one.first?.attributes?.string(.account))
        let index = try #require(Int(account.dropFirst("account-".count)))
        #expect(one.first?.data?.text == SalvageFixture.values(index).secret)
        #expect(throws: damage) { try handle.find(.genericPassword(service: "service-1"), limit: .all, returning: .attributes) }
        #expect(throws: damage) { try handle.find(.genericPassword(account: "nobody"), limit: .one, returning: .attributes) }
        #expect(throws: damage) { try handle.find(.genericPassword(label: "label 100"), limit: .one, returning: .data) }
        #expect(throws: damage) { try handle.find(.genericPassword(account: "account-150"), limit: .all, returning: .data) }
        #expect(throws: damage) { try handle.update(.genericPassword(label: "label 150"), attributes: nil, data: secret("new")) }
        #expect(throws: damage) { try handle.delete(.genericPassword(service: "service-3")) }
        // Nothing was changed by the refused writes.
        let kept = SalvageFixture.values(150)
        #expect(try handle.find(.genericPassword(label: kept.label), limit: .one, returning: .data).first?.data?.text == kept.secret)
        let three = SalvageFixture.values(3)
        #expect(try handle.find(.genericPassword(account: three.account), limit: .one, returning: .data).first?.data?.text == three.secret)
    }
}
