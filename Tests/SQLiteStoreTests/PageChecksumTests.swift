import CSodium
import Data
import Domain
import Foundation
import RawSQLite
import TestSupport
import Testing

/// Every page of the database file carries a checksum, so damage to a page SQLite uses to find rows
/// (an index page, an interior table page) is an integrity failure as soon as the page is read, never
/// a lookup that quietly returns fewer items: found by the torture bench's random bit flips, where a
/// damaged index page made a lookup by service return 8 of its 67 items.
@Suite struct PageChecksumTests {
    let fixture = StoreFixture()
    private static let pageSize = 4096
    private let services = ["mail", "calendar", "files"]

    /// 150 items over three services: enough for several index and table pages.
    private var items: [(service: String, account: String, secret: String)] {
        (0..<150).map { (services[$0 % 3], "account-\($0)", "secret-\($0)-" + String(repeating: "x", count: $0 % 40)) }
    }

    /// Creates the store and closes it, so that every page is in the database file.
    private func createStore() throws {
        let store = try fixture.open()
        try store.transaction { transaction in
            for item in items {
                try transaction.add(
                    .genericPassword(service: item.service, account: item.account), data: secret(item.secret))
            }
        }
    }

    /// Whether page `index` (from 0) ends with its checksum (``PageChecksum``).
    private func checksumMatches(_ file: [UInt8], page index: Int) -> Bool {
        Array(file[((index + 1) * Self.pageSize - 8)..<((index + 1) * Self.pageSize)])
            == PageChecksum.expected(file, page: index)
    }

    private enum Outcome: Equatable {
        case right
        case integrityFailure
        case wrong(String)
    }

    /// Opens the store and asks for every service's items and every item by its unique key.
    private func readEverything() -> Outcome {
        do {
            let store = try fixture.open()
            for service in services {
                let found = try store.find(.genericPassword(service: service), limit: .all, returning: .all)
                let answer = Set(found.map { "\($0.attributes?.string(.account) ?? "?")=\($0.data?.text ?? "?")" })
                let expected = Set(items.filter { $0.service == service }.map { "\($0.account)=\($0.secret)" })
                if answer != expected { return .wrong("\(service): \(answer.count) items, expected \(expected.count)") }
            }
            for item in items {
                let data = try store.find(.genericPassword(service: item.service, account: item.account)).first?.data
                if data?.text != item.secret { return .wrong("\(item.account) read wrong") }
            }
            return .right
        } catch {
            return error.isIntegrityFailure ? .integrityFailure : .wrong("\(error)")
        }
    }

    @Test func everyPageOfANewStoreCarriesItsChecksum() throws {
        try createStore()
        let file = FileBytes.read(fixture.path)
        #expect(file[20] == 8, "the header reserves 8 bytes per page")
        #expect(file.count % Self.pageSize == 0)
        #expect(file.count / Self.pageSize >= 10)
        let stale = (0..<(file.count / Self.pageSize)).filter { !checksumMatches(file, page: $0) }
        #expect(stale.isEmpty, "pages without a valid checksum: \(stale)")
        #expect(readEverything() == .right)
    }

    /// The pages of the `items` table's index (b-tree index pages: type 2 or 10), numbered from 0.
    private func indexPages(_ file: [UInt8]) -> Set<Int> {
        Set((1..<(file.count / Self.pageSize)).filter { [0x02, 0x0A].contains(file[$0 * Self.pageSize]) })
    }

    /// The pages of the header record's two copies (`meta`, `meta_copy`), numbered from 0: damage to
    /// one of them leaves the store to open from the other.
    private func headerPages() throws -> Set<Int> {
        let raw = try fixture.raw()
        let roots = try raw.query("SELECT rootpage FROM sqlite_master WHERE name IN ('meta', 'meta_copy')")
        let pages = Set(roots.compactMap { $0[0].integer.map { Int($0) - 1 } })
        #expect(pages.count == 2)
        return pages
    }

    @Test func damageToAnyPageIsAnIntegrityFailureOrAnsweredFromTheTableNeverAShortAnswer() throws {
        try createStore()
        let header = try headerPages()
        let pristine = FileBytes.read(fixture.path)
        let pages = pristine.count / Self.pageSize
        var detected = 0
        var answered: Set<Int> = []
        for page in 0..<pages {
            var damaged = pristine
            damaged[page * Self.pageSize + 2000] ^= 0x20
            try FileBytes.writePrivate(damaged, to: fixture.path)
            switch readEverything() {
            case .right: answered.insert(page)
            case .integrityFailure: detected += 1
            case .wrong(let what): Issue.record("a flip in page \(page + 1) gave a wrong answer: \(what)")
            }
        }
        // Reading everything touches every page in use: each flip is caught, wherever it landed (free
        // space in a page included), except in the index: a lookup whose index page is damaged reads
        // the table itself, whose rows still match their digest, and answers in full; and in one copy of
        // the header, when the store opens from the other.
        #expect(detected + answered.count == pages)
        #expect(header.isSubset(of: answered), "a damaged copy of the header kept the store shut: \(answered)")
        #expect(
            answered.isSubset(of: indexPages(pristine).union(header)),
            "answered despite damage outside the index and the header's copies: \(answered)")
    }

    @Test func aFileCutInsideAPageIsDamage() throws {
        try createStore()
        let file = FileBytes.read(fixture.path)
        let cut = Array(file.prefix(file.count - Self.pageSize / 2))
        try FileBytes.writePrivate(cut, to: fixture.path)
        #expect(readEverything() == .integrityFailure)
    }

    @Test func verifyNamesTheDamagedIndexPage() throws {
        try createStore()
        let root = try #require(
            try fixture.raw().value(
                "SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'items'"
            ).integer)
        var file = FileBytes.read(fixture.path)
        file[(Int(root) - 1) * Self.pageSize + 1000] ^= 0x01
        try FileBytes.writePrivate(file, to: fixture.path)
        // Opening reads the table, not its index; the index is read by a lookup, which then reads the
        // table itself and still answers, and by verify, which names the page.
        let store = try fixture.open()
        let item = items.first { $0.service == "mail" }!
        #expect(
            try store.find(.genericPassword(service: "mail", account: item.account)).first?.data?.text == item.secret)
        let report = try store.verify()
        #expect(report.databaseCheck.contains("Page \(root)"))
        #expect(report.databaseCheck.contains("its checksum does not match"))
    }

    @Test func aStoreMadeBeforePageChecksumsIsUpgradedWhenOpened() throws {
        try createStore()
        // The same tables, rows and row ids in a file that reserves no bytes: the format before
        // page checksums.
        let oldPath = fixture.directory.file("old.db")
        do {
            let old = try RawDatabase(path: oldPath, create: true, checksums: false)
            try old.query("PRAGMA journal_mode = WAL")
            try old.query("ATTACH DATABASE ? AS current", [.text(fixture.path)])
            for table in try old.query("SELECT name, sql FROM current.sqlite_master WHERE type = 'table'") {
                guard case .text(let name) = table[0], case .text(let sql) = table[1] else { continue }
                try old.query(sql)
                try old.query("INSERT INTO main.\(name) SELECT * FROM current.\(name)")
            }
            // Then the triggers, after the rows (they would write the header's copy twice), so that
            // the schema is the store's to the byte, as the store checks.
            for trigger in try old.query("SELECT sql FROM current.sqlite_master WHERE type = 'trigger'") {
                guard case .text(let sql) = trigger[0] else { continue }
                try old.query(sql)
            }
            try old.query("DETACH DATABASE current")
        }
        #expect(rename(oldPath, fixture.path) == 0)
        #expect(chmod(fixture.path, 0o600) == 0)
        #expect(FileBytes.read(fixture.path)[20] == 0)

        #expect(readEverything() == .right)
        let file = FileBytes.read(fixture.path)
        #expect(file[20] == 8)
        #expect((0..<(file.count / Self.pageSize)).allSatisfy { checksumMatches(file, page: $0) })
    }

    /// Stamps every page of `file` with the checksum pages carried before CRC-32C: SipHash-2-4 of the
    /// page's first `pageSize - 8` bytes, keyed with its page number.
    private func stampedWithSipHash(_ file: [UInt8]) -> [UInt8] {
        var file = file
        for index in 0..<(file.count / Self.pageSize) {
            let start = index * Self.pageSize
            var key = [UInt8](repeating: 0, count: 16)
            withUnsafeBytes(of: UInt64(index + 1).littleEndian) { key.replaceSubrange(0..<8, with: $0) }
            var sum = [UInt8](repeating: 0, count: 8)
            let page = Array(file[start..<(start + Self.pageSize - 8)])
            crypto_shorthash(&sum, page, UInt64(page.count), key)
            file.replaceSubrange((start + Self.pageSize - 8)..<(start + Self.pageSize), with: sum)
        }
        return file
    }

    @Test func aStoreStampedWithSipHashStillReadsAndStillCatchesDamage() throws {
        try createStore()
        let header = try headerPages()
        let older = stampedWithSipHash(FileBytes.read(fixture.path))
        try FileBytes.writePrivate(older, to: fixture.path)
        #expect(readEverything() == .right)
        let pages = older.count / Self.pageSize
        var detected = 0
        for page in 0..<pages {
            var damaged = older
            damaged[page * Self.pageSize + 2000] ^= 0x20
            try FileBytes.writePrivate(damaged, to: fixture.path)
            if readEverything() == .integrityFailure { detected += 1 }
        }
        // Every page but the index's (answered from the table, as with CRC-32C pages) and the header
        // copies' (the store opens from the other copy).
        #expect(detected == pages - indexPages(older).count - header.count)
    }

    @Test(arguments: [0, 4] as [UInt8])
    func aHeaderReservingAnotherSizeIsDamage(reserve: UInt8) throws {
        // 0 is one bit away from 8, and what a store made before page checksums says: page 1's own
        // checksum tells them apart. 4 leaves every cell where SQLite can read it: only the store's
        // check of the reserve catches it.
        try createStore()
        var file = FileBytes.read(fixture.path)
        file[20] = reserve
        try FileBytes.writePrivate(file, to: fixture.path)
        let error = #expect(throws: SecureStoreError.self) { _ = try fixture.open() }
        #expect(error?.isIntegrityFailure == true)
        #expect(fileIsUnchanged(fixture.path, file))
    }
}
