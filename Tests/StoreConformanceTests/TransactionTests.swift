import Data
import Domain
import TestSupport
import Testing

/// `transaction { }`: its writes commit together, or none do.
@Suite struct TransactionTests {
    private struct Abandoned: Error {}

    @Test(arguments: StoreAdapter.all)
    func severalWritesCommitTogetherAndOthersSeeThemOnlyAfterCommit(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        let other = try fixture.open()
        try store.add(.genericPassword(service: "old", account: "a"), data: secret("old"))
        let count = try store.transaction { transaction in
            try transaction.add(.genericPassword(service: "s", account: "1"), data: secret("one"))
            try transaction.add(.genericPassword(service: "s", account: "2"), data: secret("two"))
            try transaction.update(.genericPassword(service: "s", account: "1"), data: secret("one, changed"))
            try transaction.delete(.genericPassword(service: "old"))
            // The transaction reads its own writes…
            #expect(try transaction.findString(.genericPassword(service: "s", account: "1")) == "one, changed")
            // …while another connection still sees the state before it.
            #expect(throws: SecureStoreError.itemNotFound) { try other.find(.genericPassword(service: "s")) }
            #expect(try other.findString(.genericPassword(service: "old")) == "old")
            return try transaction.find(.genericPassword(service: "s"), limit: .all).count
        }
        #expect(count == 2)
        #expect(try other.findString(.genericPassword(service: "s", account: "1")) == "one, changed")
        #expect(try other.findString(.genericPassword(service: "s", account: "2")) == "two")
        #expect(throws: SecureStoreError.itemNotFound) { try other.find(.genericPassword(service: "old")) }
    }

    @Test(arguments: StoreAdapter.all)
    func aBodyThatThrowsLeavesNothingBehind(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        try store.add(.genericPassword(service: "keep", account: "a"), data: secret("kept"))
        #expect(throws: Abandoned.self) {
            try store.transaction { transaction in
                try transaction.add(.genericPassword(service: "s", account: "1"), data: secret("one"))
                try transaction.update(.genericPassword(service: "keep"), data: secret("overwritten"))
                throw Abandoned()
            }
        }
        #expect(throws: SecureStoreError.itemNotFound) { try store.find(.genericPassword(service: "s")) }
        #expect(try store.findString(.genericPassword(service: "keep")) == "kept")

        // The store keeps working, inside and outside transactions.
        try store.add(.genericPassword(service: "s", account: "1"), data: secret("after"))
        try store.transaction { transaction in
            try transaction.add(.genericPassword(service: "s", account: "2"), data: secret("after 2"))
        }
        #expect(try store.find(.genericPassword(service: "s"), limit: .all).count == 2)
        #expect(try store.verify().isSound)
    }

    @Test(arguments: StoreAdapter.all)
    func aDuplicateInsideATransactionRollsBackItsEarlierWrites(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        try store.add(.genericPassword(service: "s", account: "taken"), data: secret("original"))
        #expect(throws: SecureStoreError.duplicateItem) {
            try store.transaction { transaction in
                try transaction.add(.genericPassword(service: "s", account: "new"), data: secret("new"))
                try transaction.update(.genericPassword(service: "s", account: "taken"), data: secret("changed"))
                try transaction.add(.genericPassword(service: "s", account: "taken"), data: secret("duplicate"))
            }
        }
        #expect(throws: SecureStoreError.itemNotFound) { try store.find(.genericPassword(account: "new")) }
        #expect(try store.findString(.genericPassword(account: "taken")) == "original")
    }

    @Test(arguments: StoreAdapter.all)
    func aFailedOperationCaughtInsideATransactionUndoesAllOfItselfAndNothingElse(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        try store.add(.genericPassword(service: "api", account: "alice"), data: secret("a-api"))
        try store.add(.genericPassword(service: "mail", account: "alice"), data: secret("a-mail"))
        try store.transaction { transaction in
            try transaction.add(.genericPassword(service: "other", account: "x"), data: secret("kept"))
            // Both alice items would become (api, alice): the first rewrite succeeds, the second clashes.
            #expect(throws: SecureStoreError.duplicateItem) {
                try transaction.update(
                    .genericPassword(account: "alice"), attributes: .genericPassword(service: "api", label: "L"),
                    data: secret("clash"))
            }
            #expect(throws: SecureStoreError.duplicateItem) {
                try transaction.add(.genericPassword(service: "other", account: "x"), data: secret("dup"))
            }
        }
        #expect(try store.findString(.genericPassword(service: "other")) == "kept")
        let api = try store.find(.genericPassword(service: "api"), limit: .all, returning: .all)
        #expect(api.count == 1)
        #expect(api.first?.text == "a-api")
        #expect(api.first?.string(.label) == nil)
        #expect(try store.findString(.genericPassword(service: "mail")) == "a-mail")
        #expect(try store.verify().isSound)
    }

    /// The same, when the failed operation had already moved an item to new index cells: the rows
    /// digest is rolled back with the rows, so other handles do not find the store damaged.
    @Test(arguments: StoreAdapter.all)
    func aFailedOperationThatMovedAnItemLeavesTheRowsDigestRight(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        for service in ["a", "b", "z"] {
            try store.add(.genericPassword(service: service, account: "alice"), data: secret(service))
        }
        try store.transaction { transaction in
            // (a, alice) becomes (c, alice); then (b, alice) would too, and clashes.
            #expect(throws: SecureStoreError.duplicateItem) {
                try transaction.update(
                    .genericPassword(account: "alice"), attributes: .genericPassword(service: "c"), data: nil)
            }
            try transaction.add(.genericPassword(service: "kept", account: "x"), data: secret("kept"))
        }
        let other = try fixture.open()
        #expect(try other.verify().isSound)
        #expect(try store.verify().isSound)
        #expect(try other.find(.genericPassword(account: "alice"), limit: .all).count == 3)
        #expect(try other.findString(.genericPassword(service: "a", account: "alice")) == "a")
        #expect(try other.findString(.genericPassword(service: "kept")) == "kept")
    }

    @Test(arguments: StoreAdapter.all)
    func readModifyWriteInATransaction(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        let counter = ItemAttributes.genericPassword(service: "counter", account: "c")
        for _ in 0..<5 {
            try store.transaction { transaction in
                let current: Int
                do {
                    current = try transaction.findValue(Int.self, counter)
                } catch SecureStoreError.itemNotFound {
                    current = 0
                }
                try transaction.addOrUpdate(counter, value: current + 1)
            }
        }
        #expect(try store.findValue(Int.self, counter) == 5)
    }

    @Test(arguments: StoreAdapter.all)
    func theStoreCalledInsideItsOwnTransactionIsAnErrorNotADeadlock(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        #expect(throws: SecureStoreError.self) {
            try store.transaction { _ in
                try store.add(.genericPassword(service: "inner", account: "a"), data: SecretBytes(utf8: "x"))
            }
        }
        #expect(throws: SecureStoreError.itemNotFound) { try store.find(.genericPassword(service: "inner")) }
    }

    @Test(arguments: StoreAdapter.all)
    func aTransactionKeptPastItsEndRefusesEveryCall(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        var kept: (any SecureItemTransaction)?
        try store.transaction { transaction in kept = transaction }
        let transaction = try #require(kept)
        #expect(throws: SecureStoreError.self) {
            try transaction.add(.genericPassword(service: "late", account: "a"), data: SecretBytes(utf8: "x"))
        }
        #expect(throws: SecureStoreError.itemNotFound) { try store.find(.genericPassword(service: "late")) }
    }
}
