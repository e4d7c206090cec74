import Data
import Domain
import Foundation
import TestSupport
import Testing

/// The four Keychain operations and add-or-update: what each matches, returns and changes.
@Suite struct StoreOperationsTests {
    /// Three generic passwords: two for alice (api and mail), one for bob (api).
    private func seeded(_ fixture: ConformanceFixture) throws -> any StoreHandle {
        let store = try fixture.open()
        try store.add(
            .genericPassword(service: "api", account: "alice", label: "API", comment: "work"), data: secret("a-api"))
        try store.add(
            .genericPassword(service: "mail", account: "alice", label: "Mail", comment: "home"),
            data: secret("a-mail"))
        try store.add(
            .genericPassword(service: "api", account: "bob", label: "API", comment: "home"), data: secret("b-api"))
        return store
    }

    @Test(arguments: StoreAdapter.all)
    func addThenFindReturnsTheSecretAndAttributes(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        try store.add(.genericPassword(service: "api", account: "alice", label: "API"), data: secret("s3cret"))
        let items = try store.find(.genericPassword(service: "api", account: "alice"), limit: .one, returning: .all)
        #expect(items.count == 1)
        #expect(items[0].itemClass == .genericPassword)
        #expect(items[0].text == "s3cret")
        #expect(items[0].string(.label) == "API")
        #expect(items[0].string(.service) == "api")
        #expect(items[0].string(.account) == "alice")
        #expect(items[0].attributes?.accessGroup == "default")
        #expect(items[0].attributes?[.creationDate]?.dateValue != nil)
        #expect(items[0].attributes?[.modificationDate] == items[0].attributes?[.creationDate])
    }

    @Test(arguments: StoreAdapter.all)
    func addingTheSameUniqueKeyTwiceIsADuplicate(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        try store.add(.genericPassword(service: "api", account: "alice"), data: secret("one"))
        #expect(throws: SecureStoreError.duplicateItem) {
            try store.add(.genericPassword(service: "api", account: "alice", label: "other"), data: secret("two"))
        }
        #expect(try store.findString(.genericPassword(service: "api", account: "alice")) == "one")
        #expect(try store.find(.genericPassword(), limit: .all).count == 1)
    }

    @Test(arguments: StoreAdapter.all)
    func limitOneReturnsOneItemAndLimitAllReturnsEveryMatch(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try seeded(fixture)
        #expect(try store.find(.genericPassword(service: "api"), limit: .one, returning: .data).count == 1)
        let all = try store.find(.genericPassword(service: "api"), limit: .all, returning: .data)
        #expect(Set(all.compactMap(\.text)) == ["a-api", "b-api"])
        #expect(try store.find(.genericPassword(), limit: .all, returning: .data).count == 3)
    }

    @Test(arguments: StoreAdapter.all)
    func returningDataAttributesOrBoth(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try seeded(fixture)
        let query = ItemAttributes.genericPassword(service: "mail", account: "alice")

        let dataOnly = try #require(try store.find(query, limit: .one, returning: .data).first)
        #expect(dataOnly.text == "a-mail")
        #expect(dataOnly.attributes == nil)

        let attributesOnly = try #require(try store.find(query, limit: .one, returning: .attributes).first)
        #expect(attributesOnly.data == nil)
        #expect(attributesOnly.string(.label) == "Mail")

        let both = try #require(try store.find(query, limit: .one, returning: .all).first)
        #expect(both.text == "a-mail")
        #expect(both.string(.comment) == "home")
    }

    @Test(arguments: StoreAdapter.all)
    func everyAttributeGivenIsAnEqualityFilter(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try seeded(fixture)
        func texts(_ query: ItemAttributes) throws -> Set<String> {
            Set(try store.find(query, limit: .all, returning: .data).compactMap(\.text))
        }
        // Partial queries: the account alone, the service alone, nothing at all.
        #expect(try texts(.genericPassword(account: "alice")) == ["a-api", "a-mail"])
        #expect(try texts(.genericPassword(service: "api")) == ["a-api", "b-api"])
        #expect(try texts(.genericPassword()) == ["a-api", "a-mail", "b-api"])
        // Attributes outside every index filter too.
        #expect(try texts(.genericPassword(label: "API")) == ["a-api", "b-api"])
        #expect(try texts(.genericPassword(comment: "home")) == ["a-mail", "b-api"])
        #expect(try texts(.genericPassword(account: "alice", comment: "home")) == ["a-mail"])
        #expect(try texts(.genericPassword(service: "api", label: "API", comment: "home")) == ["b-api"])
        #expect(try texts(.genericPassword(service: "api", account: "bob", comment: "home")) == ["b-api"])
        #expect(try texts(.genericPassword(account: "bob", accessGroup: "default")) == ["b-api"])
        // One differing value is enough to exclude an item.
        #expect(throws: SecureStoreError.itemNotFound) { try texts(.genericPassword(account: "alice", label: "Nope")) }
        #expect(throws: SecureStoreError.itemNotFound) {
            try texts(.genericPassword(service: "api", account: "bob", comment: "work"))
        }
        #expect(throws: SecureStoreError.itemNotFound) { try texts(.genericPassword(account: "carol")) }
        // Another class never matches.
        #expect(throws: SecureStoreError.itemNotFound) { try texts(.internetPassword()) }
    }

    @Test(arguments: StoreAdapter.all)
    func textIsComparedByteForByte(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        try store.add(.genericPassword(service: "caf\u{E9}", account: "a"), data: secret("composed"))
        #expect(throws: SecureStoreError.itemNotFound) {
            try store.find(.genericPassword(service: "cafe\u{301}", account: "a"))
        }
        #expect(throws: SecureStoreError.itemNotFound) { try store.find(.genericPassword(service: "Caf\u{E9}")) }
    }

    @Test(arguments: StoreAdapter.all)
    func updateChangesEveryMatchAndNothingElse(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try seeded(fixture)
        let changed = try store.update(
            .genericPassword(service: "api"), attributes: .genericPassword(comment: "rotated"), data: secret("new"))
        #expect(changed == 2)
        for account in ["alice", "bob"] {
            let item = try store.item(.genericPassword(service: "api", account: account))
            #expect(item.text == "new")
            #expect(item.string(.comment) == "rotated")
            #expect(item.string(.label) == "API")
        }
        let untouched = try store.item(.genericPassword(service: "mail"))
        #expect(untouched.text == "a-mail")
        #expect(untouched.string(.comment) == "home")
    }

    @Test(arguments: StoreAdapter.all)
    func updateOfAttributesAloneKeepsTheData(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try seeded(fixture)
        // Renaming the service moves every index, so the data is re-encrypted under the new ones.
        let renamed = try store.update(
            .genericPassword(service: "mail"), attributes: .genericPassword(service: "imap"), data: nil)
        #expect(renamed == 1)
        #expect(try store.findString(.genericPassword(service: "imap", account: "alice")) == "a-mail")
        #expect(throws: SecureStoreError.itemNotFound) { try store.find(.genericPassword(service: "mail")) }
        // A label change moves no index.
        let relabelled = try store.update(
            .genericPassword(service: "imap"), attributes: .genericPassword(label: "IMAP"), data: nil)
        #expect(relabelled == 1)
        let item = try store.item(.genericPassword(service: "imap"))
        #expect(item.text == "a-mail")
        #expect(item.string(.label) == "IMAP")
        #expect(try store.verify().isSound)
    }

    @Test(arguments: StoreAdapter.all)
    func updateWithNoMatchIsItemNotFound(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try seeded(fixture)
        #expect(throws: SecureStoreError.itemNotFound) {
            try store.update(.genericPassword(service: "none"), data: secret("x"))
        }
        #expect(throws: SecureStoreError.itemNotFound) {
            try store.update(.internetPassword(), attributes: .internetPassword(label: "x"), data: nil)
        }
    }

    @Test(arguments: StoreAdapter.all)
    func updateThatWouldDuplicateAUniqueKeyChangesNothing(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try seeded(fixture)
        // alice's api and mail items would both become (api, alice).
        #expect(throws: SecureStoreError.duplicateItem) {
            try store.update(
                .genericPassword(account: "alice"), attributes: .genericPassword(service: "api", label: "clash"),
                data: secret("clash"))
        }
        // bob's item alone would become alice's api item.
        #expect(throws: SecureStoreError.duplicateItem) {
            try store.update(
                .genericPassword(account: "bob"), attributes: .genericPassword(account: "alice"), data: secret("clash"))
        }
        let api = try store.item(.genericPassword(service: "api", account: "alice"))
        #expect(api.text == "a-api")
        #expect(api.string(.label) == "API")
        let mail = try store.item(.genericPassword(service: "mail", account: "alice"))
        #expect(mail.text == "a-mail")
        #expect(mail.string(.label) == "Mail")
        let bob = try store.item(.genericPassword(service: "api", account: "bob"))
        #expect(bob.text == "b-api")
        #expect(try store.find(.genericPassword(), limit: .all).count == 3)
    }

    @Test(arguments: StoreAdapter.all)
    func updateCannotChangeTheClass(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try seeded(fixture)
        #expect(throws: SecureStoreError.classMismatch(.genericPassword, .internetPassword)) {
            try store.update(.genericPassword(service: "api"), attributes: .internetPassword(server: "x"), data: nil)
        }
    }

    @Test(arguments: StoreAdapter.all)
    func deleteRemovesEveryMatchAndCountsThem(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try seeded(fixture)
        #expect(try store.delete(.genericPassword(service: "nothing")) == 0)
        #expect(try store.delete(.genericPassword(account: "alice")) == 2)
        #expect(throws: SecureStoreError.itemNotFound) { try store.find(.genericPassword(account: "alice")) }
        #expect(try store.findString(.genericPassword(service: "api", account: "bob")) == "b-api")
        #expect(try store.delete(.genericPassword(account: "alice")) == 0)
        #expect(try store.delete(.genericPassword(comment: "home")) == 1)
        #expect(try store.delete(.genericPassword()) == 0)
    }

    @Test(arguments: StoreAdapter.all)
    func addOrUpdateAddsThenUpdatesInPlace(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let clock = TestClock()
        let store = try fixture.open(now: clock.now)
        let attributes = ItemAttributes.genericPassword(service: "api", account: "alice", label: "first")
        #expect(try store.addOrUpdate(attributes, data: secret("one")) == .added)
        let added = try store.item(attributes)

        clock.advance(by: 60)
        #expect(
            try store.addOrUpdate(.genericPassword(service: "api", account: "alice", comment: "c"), data: secret("two"))
                == .updated)
        let updated = try store.find(.genericPassword(service: "api"), limit: .all, returning: .all)
        #expect(updated.count == 1)
        #expect(updated[0].text == "two")
        #expect(updated[0].string(.label) == "first")
        #expect(updated[0].string(.comment) == "c")
        #expect(updated[0].attributes?[.creationDate] == added.attributes?[.creationDate])
        #expect(
            updated[0].attributes?[.modificationDate]?.dateValue
                == added.attributes?[.creationDate]?.dateValue?.addingTimeInterval(60))
    }

    @Test(arguments: StoreAdapter.all)
    func leftOutUniqueKeyAttributesCountAsEmptyValues(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        try store.add(.genericPassword(service: "api"), data: secret("no account"))
        #expect(throws: SecureStoreError.duplicateItem) {
            try store.add(.genericPassword(service: "api", account: ""), data: secret("empty account"))
        }
        #expect(try store.findString(.genericPassword(service: "api", account: "")) == "no account")
        #expect(try store.findString(.genericPassword(account: "")) == "no account")
        #expect(try store.addOrUpdate(.genericPassword(service: "api", account: ""), string: "updated") == .updated)
        #expect(try store.find(.genericPassword(), limit: .all).count == 1)

        try store.add(.internetPassword(server: "h"), data: secret("no port"))
        #expect(throws: SecureStoreError.duplicateItem) {
            try store.add(.internetPassword(server: "h", port: 0, path: ""), data: secret("port zero"))
        }
        try store.add(.key(applicationTag: [1]), data: secret("k"))
        #expect(try store.findString(.key(applicationTag: [1], keySizeInBits: 0)) == "k")
    }

    @Test(arguments: StoreAdapter.all)
    func attributesTheClassDoesNotAllowAreRefusedEvenWhenSetAsStoreManaged(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        var smuggled = ItemAttributes.genericPassword(service: "api", account: "a")
        smuggled.setStoreManaged(.server, .string("host"))
        #expect(throws: SecureStoreError.attributeNotAllowed(.server, .genericPassword)) {
            try store.add(smuggled, data: secret("x"))
        }
        #expect(throws: SecureStoreError.attributeNotAllowed(.server, .genericPassword)) {
            try store.addOrUpdate(smuggled, data: secret("x"))
        }
        var wrongKind = ItemAttributes.genericPassword(service: "api", account: "a")
        wrongKind.setStoreManaged(.label, .integer(3))
        #expect(throws: SecureStoreError.invalidAttributeValue(.label, expected: .string)) {
            try store.add(wrongKind, data: secret("x"))
        }
        try store.add(.genericPassword(service: "api", account: "a"), data: secret("ok"))
        #expect(throws: SecureStoreError.invalidAttributeValue(.label, expected: .string)) {
            try store.update(.genericPassword(service: "api"), attributes: wrongKind, data: nil)
        }
        // Nothing unreadable was written.
        #expect(try store.verify().isSound)
        #expect(try store.find(.genericPassword(), limit: .all, returning: .all).count == 1)
    }
}
