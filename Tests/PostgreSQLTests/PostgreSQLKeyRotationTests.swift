import Data
import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore
import TestSupport
import Testing

/// The attack a rotation answers, on a real PostgreSQL server: someone with SQL access (or a backup of
/// the schema) who holds the old key and the old header row puts that row back and opens the store.
/// After a re-wrap that reads everything, items written since included; after a rotation it reads
/// nothing: every row and every group's digest is sealed under the new master key.
@Suite struct PostgreSQLKeyRotationTests {
    private let before = ItemAttributes.genericPassword(service: "api", account: "before", accessGroup: "a")
    private let other = ItemAttributes.genericPassword(service: "api", account: "other", accessGroup: "b")
    private let after = ItemAttributes.genericPassword(service: "api", account: "after", accessGroup: "a")

    /// The header row's three cells, as stored.
    private func headerRow(_ test: TestStore) throws -> [PostgreSQLValue] {
        let result = try test.sql().query("SELECT header, checksum, wrapped_key FROM \(test.schema).meta")
        return try (0..<3).map { column throws(PostgreSQLError) in .bytes(try result.bytes(0, column)) }
    }

    /// Puts `row` back as the header row, as raw bytes.
    private func graft(_ row: [PostgreSQLValue], into test: TestStore) throws {
        _ = try test.sql().query(
            "UPDATE \(test.schema).meta SET header = $1, checksum = $2, wrapped_key = $3 WHERE id = 1", row)
        #expect(try headerRow(test) == row)
    }

    /// A store of two groups under `test.key`, and its header row then.
    private func oldStore(_ test: TestStore) throws -> [PostgreSQLValue] {
        let store = try test.open(groups: ["a", "b"])
        try store.add(before, data: secret("OLD-A"))
        try store.add(other, data: secret("OLD-B"))
        return try headerRow(test)
    }

    /// Whether a lookup answered damage (an integrity failure), never the item nor "not found".
    private func isDamaged(_ lookup: ItemLookup) -> Bool {
        if case .damaged(let error) = lookup { error.isIntegrityFailure } else { false }
    }

    /// The header's format byte, as stored.
    private func format(_ test: TestStore) throws -> UInt8 {
        guard case .bytes(let header) = try headerRow(test)[0], header.count > 3 else { return 0 }
        return header[3]
    }

    /// Format 4 changes only the digest of rows without a version: a PostgreSQL store is made in format
    /// 3, which instances not yet upgraded still open, and a rotation leaves it there (one of format 2
    /// moves to 3, whose digests are sealed).
    @Test func aStoreIsMadeInFormat3AndARotationMovesItNoFurther() throws {
        let test = TestStore()
        _ = try oldStore(test)
        #expect(try format(test) == StoreHeader.versionedRowsFormat)
        let store = try test.open(groups: ["a", "b"])
        #expect(try store.rotateKey(to: .key(test.key)) == 2)
        #expect(try format(test) == StoreHeader.versionedRowsFormat)
        #expect(try store.verify().isSound)

        let older = TestStore()
        do {
            let store = try older.open(groups: ["a"], format: 2)
            try store.add(before, data: secret("OLD-A"))
            #expect(try store.rotateKey(to: .key(older.key)) == 1)
        }
        #expect(try format(older) == StoreHeader.versionedRowsFormat)
        #expect(try older.open(groups: ["a"]).findString(before) == "OLD-A")
    }

    @Test func afterARotationTheOldHeaderRowPutBackOpensNothing() throws {
        let test = TestStore()
        let old = try oldStore(test)
        let newKey = TestStore.randomKey()
        do {
            let store = try test.open(groups: ["a"])
            #expect(try store.rotateKey(to: .key(newKey)) == 2)
            try store.add(after, data: secret("NEW-A"))
        }
        #expect(throws: SecureStoreError.wrongKey) { try test.open(groups: ["a", "b"]) }
        do {
            let store = try test.open(groups: ["a", "b"], key: newKey)
            #expect(try store.findString(before) == "OLD-A")
            #expect(try store.findString(other) == "OLD-B")
            #expect(try store.findString(after) == "NEW-A")
            #expect(try store.verify().isSound)
        }

        // The attack: the old header row back, opened with the old key. The key unwraps (it is the old
        // master key); nothing authenticates under it.
        try graft(old, into: test)
        let opened: PostgreSQLSecureItemStore
        do {
            opened = try test.open(groups: ["a", "b"])
        } catch {
            Issue.record("the old header did not even open: \(error)")
            return
        }
        for query in [before, other, after] {
            #expect(isDamaged(opened.lookup(query)), "\(query)")
        }
        let report = try opened.verify()
        #expect(!report.isSound)
        #expect(report.soundItems == 0)
        #expect(report.damagedItems == 3)
        #expect(throwsIntegrityFailure { try opened.add(.genericPassword(service: "x", accessGroup: "a"), data: secret("X")) })
    }

    @Test func afterAReWrapTheOldHeaderRowPutBackReadsEverythingWrittenSince() throws {
        let test = TestStore()
        let old = try oldStore(test)
        let newKey = TestStore.randomKey()
        do {
            let store = try test.open(groups: ["a"])
            try store.changeKey(to: .key(newKey))
            try store.add(after, data: secret("NEW-A"))
        }
        // The re-wrap's limit, as documented: the same master key under the old header row.
        try graft(old, into: test)
        let opened = try test.open(groups: ["a", "b"])
        #expect(try opened.findString(after) == "NEW-A")
        #expect(try opened.findString(other) == "OLD-B")
    }

    @Test func aHandleOpenedBeforeARotationWritesNothingUnderTheOldKeyAndLocksItself() throws {
        let test = TestStore()
        _ = try oldStore(test)
        let stale = try test.open(groups: ["a", "b", "c"])
        let newKey = TestStore.randomKey()
        do {
            let store = try test.open(groups: ["b"])
            #expect(try store.rotateKey(to: .key(newKey)) == 2)
        }
        // A handle opened before it writes nothing under the old key, in a group it wrote before or a
        // new one: it finds the key changed, and locks itself.
        #expect(throws: SecureStoreError.locked) { try stale.update(before, attributes: nil, data: secret("STALE")) }
        #expect(throws: SecureStoreError.locked) {
            try stale.add(.genericPassword(service: "s", accessGroup: "c"), data: secret("S"))
        }
        #expect(throws: SecureStoreError.wrongKey) { try stale.unlock(with: .key(test.key)) }
        try stale.unlock(with: .key(newKey))
        try stale.add(.genericPassword(service: "s", accessGroup: "c"), data: secret("S"))
        let store = try test.open(groups: ["a", "b", "c"], key: newKey)
        #expect(try store.findString(before) == "OLD-A")
        #expect(try store.verify().isSound)
    }
}
