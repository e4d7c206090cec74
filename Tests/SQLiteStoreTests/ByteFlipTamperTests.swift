import Data
import Domain
import Foundation
import SQLiteStore
import TestSupport
import Testing

/// Damage to the file, one byte at a time: every read either returns exactly the right values, all of
/// them, or throws. A wrong value or a missing one is never acceptable, and neither is a crash.
@Suite struct ByteFlipTamperTests {
    let fixture = StoreFixture()

    private struct Item {
        let service: String
        let account: String
        let label: String
        let secret: String

        var query: ItemAttributes { .genericPassword(service: service, account: account) }
    }

    private let items = [
        Item(service: "oauth", account: "access-token", label: "Access", secret: "ACCESS-7f3a91"),
        Item(service: "oauth", account: "refresh-token", label: "Refresh", secret: "REFRESH-c04d2e"),
        Item(service: "mail", account: "alice", label: "Mail", secret: "MAIL-99b1f0"),
    ]

    /// The reads each damaged file is put through: by unique key, by the primary (service) index, by a
    /// full scan filtered on decrypted attributes, and everything.
    private var queries: [ItemAttributes] {
        items.map(\.query) + [
            .genericPassword(service: "oauth"), .genericPassword(account: "alice"), .genericPassword(label: "Refresh"),
            .genericPassword(),
        ]
    }

    /// Whether `item`, returned for `query`, is one of the stored items, exactly, and matches the query.
    private func isRight(_ item: StoredItem, for query: ItemAttributes, parts: ItemParts) -> Bool {
        guard item.itemClass == .genericPassword else { return false }
        let candidates: [Item]
        if let attributes = item.attributes {
            guard parts.contains(.attributes), attributes.matches(query), attributes.accessGroup == "default",
                let stored = items.first(where: {
                    $0.service == attributes.string(.service) && $0.account == attributes.string(.account)
                }),
                attributes.string(.label) == stored.label,
                attributes[.creationDate] != nil,
                attributes.values.count == 6
            else { return false }
            candidates = [stored]
        } else {
            guard !parts.contains(.attributes) else { return false }
            candidates = matching(query)
        }
        if parts.contains(.data) {
            guard let text = item.data?.text, candidates.contains(where: { $0.secret == text }) else { return false }
        } else if item.data != nil {
            return false
        }
        return true
    }

    /// The stored items `query` matches.
    private func matching(_ query: ItemAttributes) -> [Item] {
        items.filter {
            ItemAttributes.genericPassword(
                service: $0.service, account: $0.account, accessGroup: "default", label: $0.label
            ).matches(query)
        }
    }

    /// Opens the (possibly damaged) store and runs every read; counts wrong answers and refusals.
    private func audit(_ fixture: StoreFixture) -> (wrong: Int, refused: Int) {
        let store: SQLiteSecureItemStore
        do {
            store = try fixture.open()
        } catch {
            return (0, 1)
        }
        var wrong = 0
        var refused = 0
        for query in queries {
            let expected = matching(query).count
            for parts: ItemParts in [.data, .attributes, .all] {
                do {
                    let found = try store.find(query, limit: .all, returning: parts)
                    wrong += found.filter { !isRight($0, for: query, parts: parts) }.count
                    // An answer with an item missing (or one twice) is wrong too.
                    if found.count != expected { wrong += 1 }
                } catch {
                    refused += 1
                }
            }
        }
        for item in items {
            do {
                if try store.findString(item.query) != item.secret { wrong += 1 }
            } catch {
                refused += 1
            }
        }
        return (wrong, refused)
    }

    /// The pages (1-based) holding the items table and each of its indexes (one, unique on the primary
    /// and unique-key indexes), and the page size. Each must be a single leaf page, so that every cell
    /// is on the pages flipped.
    private func itemPages() throws -> (pageSize: Int, table: Int, indexes: [Int], meta: Int) {
        let raw = try fixture.raw()
        let pageSize = Int(try raw.value("PRAGMA page_size").integer ?? 0)
        func root(_ name: String) throws -> Int {
            Int(try raw.value("SELECT rootpage FROM sqlite_master WHERE name = ?", [.text(name)]).integer ?? 0)
        }
        let indexes = try raw.query("SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'items'")
            .map { Int($0[0].integer ?? 0) }
        #expect(!indexes.isEmpty)
        return (pageSize, try root("items"), indexes, try root("meta"))
    }

    /// A b-tree leaf page's offsets, and its free space among them: between the header and cell
    /// pointers before it and the cells after it.
    private func layout(ofPage page: Int, pageSize: Int, in file: [UInt8]) -> (page: Range<Int>, free: Range<Int>) {
        let start = (page - 1) * pageSize
        let cells = Int(file[start + 3]) << 8 | Int(file[start + 4])
        let content = Int(file[start + 5]) << 8 | Int(file[start + 6])
        return (start..<(start + pageSize), (start + 8 + 2 * cells)..<(start + content))
    }

    /// Writes `pristine` with each flip applied in turn to `fixture`'s store and audits it.
    private func flip(_ flips: [(offset: Int, mask: UInt8)], of pristine: [UInt8], in fixture: StoreFixture) throws
        -> (wrong: Int, refused: Int, unaffected: Int)
    {
        var total = (wrong: 0, refused: 0, unaffected: 0)
        for (offset, mask) in flips {
            var damaged = pristine
            damaged[offset] ^= mask
            try? FileManager.default.removeItem(atPath: fixture.walPath)
            try? FileManager.default.removeItem(atPath: fixture.shmPath)
            try FileBytes.writePrivate(damaged, to: fixture.path)
            let (wrong, refused) = audit(fixture)
            if wrong > 0 { Issue.record("byte \(offset) ^ \(mask): \(wrong) wrong value(s)") }
            total.wrong += wrong
            total.refused += refused
            if refused == 0 { total.unaffected += 1 }
        }
        return total
    }

    @Test func flippingAnyByteOfTheItemPagesNeverYieldsAWrongValue() async throws {
        do {
            let store = try fixture.open()
            for item in items {
                try await store.add(
                    .genericPassword(service: item.service, account: item.account, label: item.label),
                    data: secret(item.secret))
            }
            try store.checkpoint()
        }
        let (pageSize, table, indexes, meta) = try itemPages()
        let pristine = FileBytes.read(fixture.path)
        #expect(!FileManager.default.fileExists(atPath: fixture.walPath))
        // 0x0D: a table leaf; 0x0A: an index leaf.
        #expect(pristine[(table - 1) * pageSize] == 0x0D)
        for page in indexes { #expect(pristine[(page - 1) * pageSize] == 0x0A) }
        let clean = audit(fixture)
        #expect(clean.wrong == 0 && clean.refused == 0)

        // Every used byte (header, cell pointers, cells) of the items table's page and of its index's
        // page, flipped in the low bit (which turns row id 2 into 3, and 3 into 2), the high bit and all
        // bits; every 16th byte of their free space; every 7th byte of the schema page and of the meta
        // page. Free space holds nothing a read uses: a flip there can only be caught by the pages'
        // checksum or change nothing, so a sample shows which as well as every byte would, at half
        // the test's time (every byte of the table page's free space made it 7,093 flips, not 3,827).
        var flips: [(offset: Int, mask: UInt8)] = []
        for page in [table] + indexes {
            let (bytes, free) = layout(ofPage: page, pageSize: pageSize, in: pristine)
            let used = Array(bytes.lowerBound..<free.lowerBound) + Array(free.upperBound..<bytes.upperBound)
            flips += used.flatMap { offset -> [(offset: Int, mask: UInt8)] in
                [(offset, 0x01), (offset, 0x80), (offset, 0xFF)]
            }
            flips += stride(from: free.lowerBound, to: free.upperBound, by: 16).map { ($0, 0x01) }
        }
        for page in [1, meta] {
            flips += stride(from: (page - 1) * pageSize, to: page * pageSize, by: 7).map { ($0, 0x01) }
        }

        // Two workers, each flipping its half in a copy of the store.
        let key = FileBytes.read(fixture.keyFile)
        let halves = [Array(flips[..<(flips.count / 2)]), Array(flips[(flips.count / 2)...])]
        var wrongValues = 0
        var refusedReads = 0
        var unaffected = 0
        try await withThrowingTaskGroup(of: (wrong: Int, refused: Int, unaffected: Int).self) { group in
            for half in halves {
                group.addTask {
                    try await DedicatedThread.run {
                        let copy = StoreFixture()
                        try FileBytes.writePrivate(key, to: copy.keyFile)
                        return try flip(half, of: pristine, in: copy)
                    }
                }
            }
            for try await result in group {
                wrongValues += result.wrong
                refusedReads += result.refused
                unaffected += result.unaffected
            }
        }
        #expect(wrongValues == 0)
        // The flips reached the items: many made reads fail (most free-space flips change nothing).
        #expect(refusedReads > flips.count / 4)
        #expect(unaffected < flips.count)
    }
}
