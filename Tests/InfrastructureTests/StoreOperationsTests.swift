import Data
import Domain
import Foundation
import Infrastructure
import Testing

@Suite struct StoreOperationsTests {
    let fixture = StoreFixture()

    @Test func addThenFindReturnsTheSecretAndAttributes() throws {
        let store = try fixture.open()
        try store.add(.genericPassword(service: "api", account: "alice", label: "API"), data: SecretBytes(utf8: "s3cret"))
        let items = try store.find(.genericPassword(service: "api", account: "alice"), limit: .one, returning: .all)
        #expect(items.count == 1)
        #expect(items[0].data?.text == "s3cret")
        #expect(items[0].attributes?.string(.label) == "API")
        #expect(items[0].attributes?.accessGroup == "default")
        #expect(items[0].attributes?[.creationDate]?.dateValue != nil)
    }

    @Test func addingTheSameUniqueKeyTwiceIsADuplicate() throws {
        let store = try fixture.open()
        try store.add(.genericPassword(service: "api", account: "alice"), data: SecretBytes(utf8: "one"))
        #expect(throws: SecureStoreError.duplicateItem) {
            try store.add(.genericPassword(service: "api", account: "alice", label: "other"), data: SecretBytes(utf8: "two"))
        }
        #expect(try store.findString(.genericPassword(service: "api", account: "alice")) == "one")
    }
}
