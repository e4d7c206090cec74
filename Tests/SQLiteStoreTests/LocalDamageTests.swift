import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore
import TestSupport
import Testing

/// Damage stays local in a store of format 3 or earlier: with one item's page damaged, every other item
/// still reads by its unique key, while every answer that damage could have changed (a list, "not
/// found") is damage. From format 4 a find that found its item also needs the rows to match their
/// digest, which counts each row's ciphertexts (an older ciphertext of one row put back is otherwise
/// read as current, `RowRollbackTests`); a damaged page, or the damaged digest, leaves that unproven
/// (and an editor could damage one on purpose to have an older row read), so every find is damage,
/// and `salvage` brings back what authenticates.
@Suite struct LocalDamageTests {
    @Test(arguments: [UInt8(3), StoreHeader.currentVersion])
    func oneDamagedItemPageCostsOnlyItsOwnItemsForLookupsByUniqueKey(format: UInt8) throws {
        var store = SalvageFixture(count: 200)
        store.fixture.format = format
        try store.create()
        let data = try store.fixture.raw().blob("SELECT data FROM items WHERE id = 101")
        try store.damage { bytes in
            let start = SalvageFixture.firstIndex(of: data, in: bytes)!
            bytes[start + data.count / 2] ^= 0x04
        }
        let handle = try store.fixture.open()
        var right = 0
        for index in 0..<200 {
            let item = SalvageFixture.values(index)
            for limit in [MatchLimit.one, .all] {
                do {
                    let found = try handle.find(
                        .genericPassword(service: item.service, account: item.account), limit: limit, returning: .all)
                    #expect(found.count == 1 && found[0].data?.text == item.secret, "item \(index) read wrong")
                    #expect(index != 100, "the damaged item was answered")
                    if limit == .all { right += 1 }
                } catch {
                    #expect(error.isIntegrityFailure, "item \(index): \(error)")
                }
            }
        }
        // One page of items (about 13 at this size) is lost to its checksum; the rest answer (format 3).
        if format < 4 {
            #expect(right >= 170, "\(right) of 200 items still read")
            #expect(right < 200)
        } else {
            #expect(right == 0, "\(right) items read past a damaged page")
        }
        // A list, and an absence, are claims about rows the damage may have hidden.
        let list = #expect(throws: SecureStoreError.self) {
            _ = try handle.find(.genericPassword(service: "service-1"), limit: .all, returning: .attributes)
        }
        #expect(list == .integrityFailure("a page of the database file is damaged (its checksum does not match)"))
        let absent = #expect(throws: SecureStoreError.self) {
            _ = try handle.find(.genericPassword(service: "service-1", account: "nobody"), limit: .one, returning: .data)
        }
        #expect(absent?.isIntegrityFailure == true, "not found claimed on a damaged store")
    }

    @Test(arguments: [UInt8(3), StoreHeader.currentVersion])
    func aDamagedRowsDigestLeavesLookupsByUniqueKeyAndRefusesListsAndWrites(format: UInt8) throws {
        var store = SalvageFixture(count: 30)
        store.fixture.format = format
        try store.create()
        let digest = try store.fixture.raw().blob("SELECT value FROM rows_digest WHERE id = 1")
        try store.damage { bytes in
            let start = SalvageFixture.firstIndex(of: digest, in: bytes)!
            bytes[start + 3] ^= 0x02
        }
        let handle = try store.fixture.open()
        let item = SalvageFixture.values(7)
        let lookup = { try handle.find(.genericPassword(service: item.service, account: item.account), limit: .all, returning: .data) }
        if format < 4 {
            #expect(try lookup().map { $0.data?.text } == [item.secret])
        } else {
            #expect(throwsIntegrityFailure { _ = try lookup() })
        }
        let list = #expect(throws: SecureStoreError.self) {
            _ = try handle.find(.genericPassword(service: item.service), limit: .all, returning: .attributes)
        }
        #expect(list?.isIntegrityFailure == true)
        #expect(list == .integrityFailure("a page of the database file is damaged (its checksum does not match)"))
        let write = #expect(throws: SecureStoreError.self) {
            try handle.add(.genericPassword(service: "new", account: "new"), data: secret("x"))
        }
        #expect(write?.isIntegrityFailure == true, "a write built on a damaged digest")
    }
}
