import Data
import Domain
import Foundation
import RawSQLite
import StoreCore
import TestSupport
import Testing

/// SQLite's unique index edited to point one item's key at another item's row, with the page's
/// checksum recomputed (as someone who can write the file, and knows the format, would): every
/// operation that looks an item up by its unique key reads the other row, and must say the store is
/// damaged rather than answer with, or overwrite, the other item.
@Suite struct IndexDesyncTests {
    let fixture = StoreFixture()
    private static let pageSize = PageChecksum.pageSize
    private let first = ItemAttributes.genericPassword(service: "api", account: "alice")
    private let second = ItemAttributes.genericPassword(service: "api", account: "bob")
    private let third = ItemAttributes.genericPassword(service: "api", account: "carol")

    /// Makes the index entry of row 2's key point at row 3, in the file, checksum recomputed.
    private func pointSecondKeyAtThirdRow() throws {
        let row = try fixture.raw().query("SELECT prim, uniq FROM items WHERE id = 2")[0]
        let key = try #require(row[0].bytes) + (try #require(row[1].bytes))
        var file = FileBytes.read(fixture.path)
        // An index record is (prim, uniq, rowid): the key's bytes, then the row id's one byte (2).
        let pages = (1..<(file.count / Self.pageSize)).filter { [0x02, 0x0A].contains(file[$0 * Self.pageSize]) }
        var edited: [Int] = []
        for page in pages {
            let range = (page * Self.pageSize)..<((page + 1) * Self.pageSize - key.count - 1)
            for start in range where file[start..<(start + key.count)].elementsEqual(key) && file[start + key.count] == 2 {
                file[start + key.count] = 3
                edited.append(page)
            }
        }
        try #require(edited.count == 1, "one index entry of row 2's key: \(edited)")
        let page = edited[0]
        file.replaceSubrange(((page + 1) * Self.pageSize - 8)..<((page + 1) * Self.pageSize), with: PageChecksum.expected(file, page: page))
        try FileBytes.write(file, to: fixture.path)
    }

    @Test func aKeyPointingAtAnotherRowIsDamageAndNothingIsOverwritten() throws {
        do {
            let store = try fixture.open()
            try store.add(first, data: secret("ALICE"))
            try store.add(second, data: secret("BOB"))
            try store.add(third, data: secret("CAROL"))
            try store.checkpoint()
        }
        let digest = try fixture.raw().blob("SELECT value FROM rows_digest WHERE id = 1")
        let before = try fixture.raw().query("SELECT id, class, grp, uniq, prim, attrs, data FROM items ORDER BY id")
        try pointSecondKeyAtThirdRow()
        let store = try fixture.open()
        // Asking for neither part too: a "found" is never answered from the index's cells alone.
        for parts: ItemParts in [.data, .attributes, .all, []] {
            let error = #expect(throws: SecureStoreError.self) { try store.find(second, limit: .one, returning: parts) }
            #expect(error?.isIntegrityFailure == true, "find: \(String(describing: error))")
        }
        let writes: [(String, () throws -> Void)] = [
            ("addOrUpdate", { _ = try store.addOrUpdate(second, data: secret("BOB-2")) }),
            ("update", { _ = try store.update(second, attributes: nil, data: secret("BOB-3")) }),
            ("delete", { _ = try store.delete(second) }),
            // The unique index refuses the key, but the row it names does not open: damage, not a duplicate.
            ("add", { try store.add(second, data: secret("BOB-4")) }),
            ("update onto the key", { _ = try store.update(first, attributes: second, data: nil) }),
            ("restore", {
                _ = try store.transaction { transaction in
                    try #require(transaction as? StoreTransaction).restore(second, data: secret("BOB-5"), update: false)
                }
            }),
        ]
        for (name, write) in writes {
            let error = #expect(throws: SecureStoreError.self, "\(name)") { try write() } as SecureStoreError?
            #expect(error?.isIntegrityFailure == true, "\(name): \(String(describing: error))")
        }
        // A handle of two groups deletes by unique key through the general path, group by group.
        let twoGroups = try fixture.open(groups: ["default", "other"])
        let error = #expect(throws: SecureStoreError.self) { _ = try twoGroups.delete(second) }
        #expect(error?.isIntegrityFailure == true, "delete over two groups: \(String(describing: error))")
        // Carol's row (the one the edited entry points at) and every other row are as they were.
        #expect(try fixture.raw().query("SELECT id, class, grp, uniq, prim, attrs, data FROM items ORDER BY id") == before)
        #expect(try fixture.raw().blob("SELECT value FROM rows_digest WHERE id = 1") == digest)
        // `verify` names it: SQLite's full check compares the index with the table.
        let report = try store.verify()
        #expect(!report.isSound && report.databaseCheck.contains("index"), "\(report.databaseCheck)")
        #expect(try store.findString(third) == "CAROL")
        #expect(try store.findString(first) == "ALICE")
    }
}
