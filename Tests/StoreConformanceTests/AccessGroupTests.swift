import Data
import Domain
import TestSupport
import Testing

/// Access groups: a handle sees and changes only its groups' items, and adds to its first group.
@Suite struct AccessGroupTests {
    @Test(arguments: StoreAdapter.all)
    func handlesOfDifferentGroupsCannotSeeOrChangeEachOthersItems(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let a = try fixture.open(groups: ["a"])
        let b = try fixture.open(groups: ["b"])
        let query = ItemAttributes.genericPassword(service: "api", account: "alice")
        try a.add(query, data: secret("in a"))

        #expect(throws: SecureStoreError.itemNotFound) { try b.find(query) }
        #expect(throws: SecureStoreError.itemNotFound) { try b.find(.genericPassword(), limit: .all) }
        #expect(throws: SecureStoreError.itemNotFound) { try b.update(query, data: secret("changed by b")) }
        #expect(try b.delete(query) == 0)
        #expect(try b.delete(.genericPassword()) == 0)
        // The same unique key in another group is another item.
        try b.add(query, data: secret("in b"))
        #expect(try b.addOrUpdate(query, string: "in b, updated") == .updated)

        #expect(try a.findString(query) == "in a")
        #expect(try b.findString(query) == "in b, updated")
        #expect(try a.delete(.genericPassword()) == 1)
        #expect(try b.findString(query) == "in b, updated")
    }

    @Test(arguments: StoreAdapter.all)
    func aHandleOfSeveralGroupsSeesThemAllAndAddsToTheFirst(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let a = try fixture.open(groups: ["a"])
        let b = try fixture.open(groups: ["b"])
        let both = try fixture.open(groups: ["a", "b"])
        try a.add(.genericPassword(service: "s", account: "from a"), data: secret("1"))
        try b.add(.genericPassword(service: "s", account: "from b"), data: secret("2"))

        let seen = try both.find(.genericPassword(service: "s"), limit: .all, returning: .all)
        #expect(Set(seen.compactMap { $0.attributes?.accessGroup }) == ["a", "b"])

        try both.add(.genericPassword(service: "s", account: "from both"), data: secret("3"))
        #expect(try a.findString(.genericPassword(account: "from both")) == "3")
        #expect(throws: SecureStoreError.itemNotFound) { try b.find(.genericPassword(account: "from both")) }

        // Naming the second group puts the item there.
        try both.add(.genericPassword(service: "s", account: "to b", accessGroup: "b"), data: secret("4"))
        #expect(try b.findString(.genericPassword(account: "to b")) == "4")
        #expect(try both.findString(.genericPassword(account: "to b", accessGroup: "b")) == "4")
        #expect(throws: SecureStoreError.itemNotFound) {
            try both.find(.genericPassword(account: "to b", accessGroup: "a"))
        }

        // An update may move an item between the handle's groups.
        try both.update(.genericPassword(account: "from a"), attributes: .genericPassword(accessGroup: "b"), data: nil)
        #expect(try b.findString(.genericPassword(account: "from a")) == "1")
        #expect(throws: SecureStoreError.itemNotFound) { try a.find(.genericPassword(account: "from a")) }
        #expect(try both.delete(.genericPassword(service: "s")) == 4)
        #expect(try both.verify().isSound)
    }

    @Test(arguments: StoreAdapter.all)
    func namingAGroupTheHandleDoesNotBelongToIsMissingEntitlement(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let a = try fixture.open(groups: ["a"])
        let b = try fixture.open(groups: ["b"])
        try a.add(.genericPassword(service: "s", account: "x"), data: secret("1"))
        try b.add(.genericPassword(service: "s", account: "x"), data: secret("2"))
        let denied = SecureStoreError.missingEntitlement(accessGroup: "c")
        let inC = ItemAttributes.genericPassword(service: "s", account: "x", accessGroup: "c")
        #expect(throws: denied) { try a.add(inC, data: secret("3")) }
        #expect(throws: denied) { try a.addOrUpdate(inC, data: secret("3")) }
        #expect(throws: denied) { try a.find(inC) }
        #expect(throws: denied) { try a.update(inC, data: secret("3")) }
        #expect(throws: denied) {
            try a.update(.genericPassword(service: "s"), attributes: .genericPassword(accessGroup: "c"), data: nil)
        }
        #expect(throws: denied) { try a.delete(inC) }
        #expect(throws: SecureStoreError.missingEntitlement(accessGroup: "b")) {
            try a.find(.genericPassword(accessGroup: "b"))
        }
        #expect(throws: SecureStoreError.missingEntitlement(accessGroup: "b")) {
            try a.delete(.genericPassword(accessGroup: "b"))
        }
        #expect(try a.findString(.genericPassword(service: "s")) == "1")
        #expect(try b.findString(.genericPassword(service: "s")) == "2")
        #expect(throws: SecureStoreError.missingEntitlement(accessGroup: "")) { try fixture.open(groups: []) }
        #expect(throws: SecureStoreError.missingEntitlement(accessGroup: "")) { try fixture.open(groups: ["a", ""]) }
    }

    @Test(arguments: StoreAdapter.all)
    func aGroupNamedTwiceIsOneGroup(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open(groups: ["a", "b", "a"])
        try store.add(.genericPassword(service: "s", account: "x"), data: secret("1"))
        #expect(try store.find(.genericPassword(), limit: .all).count == 1)
        #expect(try store.update(.genericPassword(service: "s"), data: secret("2")) == 1)
        #expect(try store.delete(.genericPassword(service: "s")) == 1)
        #expect(store.accessGroups == ["a", "b"])
    }
}
