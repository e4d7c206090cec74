import Data
import Domain
import Foundation
import StoreCore
import TestSupport
import Testing

/// A rotation of the master key, on every adapter: every item of every access group is re-sealed under
/// a new key and stays readable under the new passphrase only; a rotation stopped midway changes
/// nothing and runs again; a handle opened before it neither reads old values nor writes under the old
/// key.
@Suite struct KeyRotationTests {
    private static let old = KeySource.passphrase(SecretBytes(utf8: "old passphrase"))
    private static let new = KeySource.passphrase(SecretBytes(utf8: "new passphrase"))

    /// Items `0..<count` in groups "a" and "b", alternately (service, account, secret).
    private func item(_ index: Int) -> (query: ItemAttributes, secret: String) {
        let query = ItemAttributes.genericPassword(
            service: "svc\(index % 3)", account: "acct\(index)", accessGroup: index % 2 == 0 ? "a" : "b")
        return (query, "secret-\(index)")
    }

    /// A passphrase store holding `count` items in groups "a" and "b".
    private func populated(_ adapter: StoreAdapter, count: Int) throws -> ConformanceFixture {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open(Self.old, groups: ["a", "b"])
        for index in 0..<count { try store.add(item(index).query, data: secret(item(index).secret)) }
        return fixture
    }

    /// How many of items `0..<count` read back exactly through `store`.
    private func readable(_ store: any StoreHandle, count: Int) -> Int {
        (0..<count).filter { (try? store.findString(item($0).query)) == item($0).secret }.count
    }

    @Test(arguments: StoreAdapter.all)
    func aRotationReSealsEveryItemAndOnlyTheNewPassphraseOpens(adapter: StoreAdapter) throws {
        let fixture = try populated(adapter, count: 12)
        do {
            // A handle of group "a" alone rotates the whole store: group "b"'s items too.
            let store = try fixture.open(Self.old, groups: ["a"])
            var steps: [(Int, Int)] = []
            let count = try store.rotateKey(to: Self.new) { steps.append(($0, $1)) }
            #expect(count == 12)
            #expect(steps.count == 12 && steps.last! == (12, 12))
            // The handle goes on under the new key.
            let added = ItemAttributes.genericPassword(service: "after", account: "rotation", accessGroup: "a")
            try store.add(added, data: secret("written after"))
            #expect(try store.findString(added) == "written after")
        }
        #expect(throws: SecureStoreError.wrongKey) { try fixture.open(Self.old, groups: ["a", "b"]) }
        let store = try fixture.open(Self.new, groups: ["a", "b"])
        #expect(readable(store, count: 12) == 12)
        #expect(try store.findString(.genericPassword(service: "after", account: "rotation")) == "written after")
        let report = try store.verify()
        #expect(report.isSound, "\(report)")
        #expect(report.soundItems == 13)
        // Writes to every group go on, also to a group first written after the rotation.
        let other = ItemAttributes.genericPassword(service: "new group", account: "x", accessGroup: "c")
        try fixture.open(Self.new, groups: ["c"]).add(other, data: secret("c"))
        try store.delete(item(1).query)
        #expect(try store.verify().isSound)
    }

    @Test(arguments: StoreAdapter.all)
    func aRotationKeepingThePassphraseStillGivesANewKey(adapter: StoreAdapter) throws {
        let fixture = try populated(adapter, count: 4)
        do {
            let store = try fixture.open(Self.old, groups: ["a", "b"])
            #expect(try store.rotateKey(to: Self.old) { _, _ in } == 4)
        }
        let store = try fixture.open(Self.old, groups: ["a", "b"])
        #expect(readable(store, count: 4) == 4)
        #expect(try store.verify().isSound)
    }

    @Test(arguments: StoreAdapter.all, [0, 1, 5])
    func aRotationStoppedMidwayChangesNothingAndRunsAgain(adapter: StoreAdapter, stoppedAfter: Int) throws {
        let fixture = try populated(adapter, count: 8)
        let before = fixture.persistedState
        do {
            let store = try fixture.open(Self.old, groups: ["a", "b"])
            let error = #expect(throws: SecureStoreError.self) {
                _ = try store.engine.rotateKey(to: Self.new, progress: { _, _ in }, stoppingAfter: stoppedAfter)
            }
            #expect("\(String(describing: error))".contains("stopped after \(stoppedAfter) rows"))
            // The handle keeps the old key, and reads and writes as before.
            #expect(readable(store, count: 8) == 8)
        }
        #expect(fixture.persistedState == before, "a stopped rotation left a change")
        #expect(throws: SecureStoreError.wrongKey) { try fixture.open(Self.new, groups: ["a", "b"]) }
        do {
            let store = try fixture.open(Self.old, groups: ["a", "b"])
            #expect(readable(store, count: 8) == 8)
            #expect(try store.rotateKey(to: Self.new) { _, _ in } == 8)
        }
        #expect(throws: SecureStoreError.wrongKey) { try fixture.open(Self.old, groups: ["a", "b"]) }
        let store = try fixture.open(Self.new, groups: ["a", "b"])
        #expect(readable(store, count: 8) == 8)
        #expect(try store.verify().isSound)
    }

    @Test(arguments: StoreAdapter.all, [true, false])
    func aHandleOpenedBeforeARotationLocksItselfAndUnlocksUnderTheNewKey(adapter: StoreAdapter, readsFirst: Bool) throws {
        let fixture = try populated(adapter, count: 4)
        let stale = try fixture.open(Self.old, groups: ["a", "b"])
        #expect(readable(stale, count: 4) == 4)
        do {
            let store = try fixture.open(Self.old, groups: ["a", "b"])
            _ = try store.rotateKey(to: Self.new) { _, _ in }
        }
        // Its keys are the old ones, under which nothing authenticates any more: not damage, but a
        // handle to unlock again. It neither reads an old value nor writes under the old key.
        if readsFirst {
            #expect(throws: SecureStoreError.locked) { try stale.findString(item(0).query) }
        } else {
            #expect(throws: SecureStoreError.locked) { try stale.add(item(9).query, data: secret("under the old key")) }
        }
        #expect(stale.isLocked)
        #expect(throws: SecureStoreError.locked) { try stale.findString(item(1).query) }
        #expect(throws: SecureStoreError.wrongKey) { try stale.unlock(with: Self.old) }
        try stale.unlock(with: Self.new)
        #expect(readable(stale, count: 4) == 4)
        try stale.add(item(9).query, data: secret("after unlocking"))
        let store = try fixture.open(Self.new, groups: ["a", "b"])
        #expect(try store.findString(item(9).query) == "after unlocking")
        #expect(try store.verify().isSound)
    }

    @Test(arguments: StoreAdapter.all)
    func aReWrapElsewhereLeavesAHandleReading(adapter: StoreAdapter) throws {
        let fixture = try populated(adapter, count: 2)
        let store = try fixture.open(Self.old, groups: ["a", "b"])
        // A re-wrap elsewhere changes the header but not the keys: this handle reads on.
        try fixture.open(Self.old, groups: ["a", "b"]).changeKey(to: Self.new)
        #expect(readable(store, count: 2) == 2)
        #expect(!store.isLocked)
    }

    @Test(arguments: StoreAdapter.all)
    func aReWrapKeepsTheMasterKey(adapter: StoreAdapter) throws {
        let fixture = try populated(adapter, count: 2)
        let stale = try fixture.open(Self.old, groups: ["a", "b"])
        do {
            let store = try fixture.open(Self.old, groups: ["a", "b"])
            try store.changeKey(to: Self.new)
            try store.add(item(2).query, data: secret(item(2).secret))
        }
        // A handle holding the old unwrapped key still reads everything, the item written since included:
        // a re-wrap changes only how the same master key is kept.
        #expect(readable(stale, count: 3) == 3)
        #expect(throws: SecureStoreError.wrongKey) { try fixture.open(Self.old, groups: ["a", "b"]) }
        #expect(readable(try fixture.open(Self.new, groups: ["a", "b"]), count: 3) == 3)
    }
}
