import Data
import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore
import TestSupport
import Testing

/// On PostgreSQL, a row whose ciphertext does not authenticate costs that item only: a match-one scan
/// steps past it to the sound items, while a list or a "none" over it is damage.
@Suite struct PostgreSQLScanDamageTests {
    @Test func aRowThatDoesNotDecryptCostsOnlyItsOwnItemInAScan() throws {
        let test = TestStore()
        let store = try test.open()
        for index in 0..<6 {
            try store.add(
                .genericPassword(service: "api", account: "user-\(index)", label: "label \(index)"), data: secret("secret-\(index)"))
        }
        let items = "\(test.schema).items"
        // The first row's ciphertext (its attributes and its secret: a joint row) no longer authenticates.
        try test.sql().execute(
            "UPDATE \(items) SET data = set_byte(data, 30, get_byte(data, 30) # 1) WHERE id = (SELECT min(id) FROM \(items))")
        for index in 1..<6 {
            let byAccount = try store.find(.genericPassword(account: "user-\(index)"), limit: .one, returning: .all)
            #expect(byAccount.first?.data?.text == "secret-\(index)")
            #expect(byAccount.first?.attributes?.string(.label) == "label \(index)")
            let byService = try store.find(.genericPassword(service: "api", label: "label \(index)"), limit: .one, returning: .data)
            #expect(byService.first?.data?.text == "secret-\(index)")
        }
        let lost = #expect(throws: SecureStoreError.self) {
            try store.find(.genericPassword(account: "user-0"), limit: .one, returning: .data)
        }
        #expect(lost?.isIntegrityFailure == true, "the damaged item: \(String(describing: lost))")
        let list = #expect(throws: SecureStoreError.self) {
            try store.find(.genericPassword(service: "api"), limit: .all, returning: .attributes)
        }
        #expect(list?.isIntegrityFailure == true, "a list over a damaged row")
        let update = #expect(throws: SecureStoreError.self) {
            try store.update(.genericPassword(account: "user-3"), attributes: nil, data: secret("changed"))
        }
        #expect(update?.isIntegrityFailure == true, "an update of every match over a damaged row")
        #expect(try store.find(.genericPassword(account: "user-3"), limit: .one, returning: .data).first?.data?.text == "secret-3")
    }
}
