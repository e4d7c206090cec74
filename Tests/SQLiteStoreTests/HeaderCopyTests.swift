import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore
import RawSQLite
import TestSupport
import Testing

/// The header record's two copies (`meta` and `meta_copy`, each on a page of its own): one destroyed
/// page never costs every item, a key change writes both, an older store gets its copy, and two copies
/// that differ open nothing.
@Suite struct HeaderCopyTests {
    /// The root page of `table` (1-based).
    private func rootPage(_ store: SalvageFixture, _ table: String) throws -> Int {
        Int(try store.fixture.raw().value("SELECT rootpage FROM sqlite_master WHERE name = ?", [.text(table)]).integer ?? 0)
    }

    /// Overwrites page `page` of the database file with seeded random bytes.
    private func destroy(_ store: SalvageFixture, page: Int, seed: UInt64) throws {
        var random = SplitMix(seed: seed)
        let size = store.pageSize
        try store.damage { bytes in
            for offset in ((page - 1) * size)..<(page * size) { bytes[offset] = UInt8(truncatingIfNeeded: random.next()) }
        }
    }

    /// How many of the fixture's items read back exactly by their unique key.
    private func readable(_ handle: SQLiteSecureItemStore, count: Int) -> Int {
        (0..<count).filter { index in
            let item = SalvageFixture.values(index)
            return (try? handle.findString(.genericPassword(service: item.service, account: item.account))) == item.secret
        }.count
    }

    /// The two copies' rows, as stored.
    private func copies(_ store: SalvageFixture) throws -> (meta: [RawDatabase.Value], copy: [RawDatabase.Value]) {
        let raw = try store.fixture.raw()
        let select = "SELECT header, checksum, wrapped_key FROM"
        return (try raw.query("\(select) meta")[0], try raw.query("\(select) meta_copy")[0])
    }

    @Test(arguments: ["meta", "meta_copy"])
    func oneDestroyedHeaderPageOpensFromTheOtherCopyAndSalvagesEveryItem(table: String) throws {
        let store = SalvageFixture(count: 1000)
        try store.create()
        let pages = (meta: try rootPage(store, "meta"), copy: try rootPage(store, "meta_copy"))
        #expect(pages.meta > 1 && pages.copy > 1 && pages.meta != pages.copy)
        #expect(abs(pages.meta - pages.copy) > 1, "the copies sit on neighbouring pages")
        try destroy(store, page: table == "meta" ? pages.meta : pages.copy, seed: 14)
        let before = store.files

        // Salvage reads the file as it is: every item, from the copy that survived.
        let result = try store.salvage()
        #expect(store.audit(result) == SalvageFixture.Audit(wrong: 0, right: 1000))
        #expect(result.isComplete)
        #expect(store.files == before, "salvage changed the damaged store")

        // The store itself opens from the sound copy, every item reads, and the damage is named.
        let handle = try store.fixture.open()
        #expect(readable(handle, count: 1000) == 1000)
        let damage = try #require(try handle.headerDamage())
        let other = table == "meta" ? "meta_copy" : "meta"
        #expect(damage.contains("(table \(table)) cannot be read"), "\(damage)")
        #expect(damage.contains("(table \(other)) is sound"), "\(damage)")
        let report = try handle.verify()
        #expect(!report.isSound, "the destroyed page is not reported")
        #expect(report.soundItems == 1000)
        #expect(SQLiteSecureItemStore.headerDamage(path: store.fixture.path) == damage)
    }

    @Test func bothHeaderPagesDestroyedLoseTheKeyAndChangeNothing() throws {
        let store = SalvageFixture(count: 50)
        try store.create()
        let pages = [try rootPage(store, "meta"), try rootPage(store, "meta_copy")]
        for (index, page) in pages.enumerated() { try destroy(store, page: page, seed: UInt64(index)) }
        let before = store.files
        let salvage = #expect(throws: SecureStoreError.self) { _ = try store.salvage() }
        #expect(salvage?.isIntegrityFailure == true, "\(String(describing: salvage))")
        #expect("\(String(describing: salvage))".contains("no copy of the store header"))
        let open = #expect(throws: SecureStoreError.self) { _ = try store.fixture.open() }
        #expect(open?.isIntegrityFailure == true, "\(String(describing: open))")
        #expect(store.files == before)
    }

    @Test func aMissingRowOpensFromTheOtherCopyUntilAKeyChangeWritesBoth() throws {
        let store = SalvageFixture(count: 20)
        try store.create()
        try store.fixture.raw().query("DELETE FROM meta")
        let handle = try store.fixture.open()
        #expect(readable(handle, count: 20) == 20)
        #expect(
            try handle.headerDamage()
                == "its first copy (table meta) has no row; its second copy (table meta_copy) is sound")
        let newKey = store.fixture.directory.file("new.key")
        try handle.changeKey(to: .keyFile(path: newKey))
        #expect(try handle.headerDamage() == nil)
        let (meta, copy) = try copies(store)
        #expect(meta == copy)
        #expect(readable(try store.fixture.openWithKeyFile(newKey), count: 20) == 20)
    }

    @Test func aRotatedKeyUpdatesBothCopies() throws {
        let store = SalvageFixture(count: 5)
        try store.create()
        let (meta, copy) = try copies(store)
        #expect(meta == copy)
        let newKey = store.fixture.directory.file("new.key")
        try store.fixture.open().changeKey(to: .keyFile(path: newKey))
        let (newMeta, newCopy) = try copies(store)
        #expect(newMeta == newCopy)
        #expect(newMeta != meta, "the key change wrote no new header")
        #expect(throws: SecureStoreError.wrongKey) { _ = try store.fixture.open() }
        #expect(readable(try store.fixture.openWithKeyFile(newKey), count: 5) == 5)
    }

    @Test func aStoreMadeBeforeTheCopyGetsItOnItsNextOpen() throws {
        let store = SalvageFixture(count: 10)
        try store.create()
        let raw = try store.fixture.raw()
        // The schema of a store made before the copy: no table, no triggers.
        for sql in ["DROP TRIGGER meta_copy_on_insert", "DROP TRIGGER meta_copy_on_update", "DROP TABLE meta_copy"] {
            try raw.query(sql)
        }
        #expect(try raw.value("SELECT count(*) FROM sqlite_master WHERE name LIKE 'meta_copy%'") == .integer(0))
        let original = try raw.query("SELECT header, checksum, wrapped_key FROM meta")[0]
        // A wrong key changes nothing.
        let other = store.fixture.directory.file("other.key")
        try FileBytes.writePrivate(Array(repeating: 9, count: 32), to: other)
        #expect(throws: SecureStoreError.wrongKey) { _ = try store.fixture.openWithKeyFile(other) }
        #expect(try raw.value("SELECT count(*) FROM sqlite_master WHERE name = 'meta_copy'") == .integer(0))

        let handle = try store.fixture.open()
        #expect(readable(handle, count: 10) == 10)
        #expect(try handle.headerDamage() == nil)
        #expect(try raw.value("SELECT count(*) FROM sqlite_master WHERE name LIKE 'meta_copy%'") == .integer(3))
        let (meta, copy) = try copies(store)
        #expect(meta == original && copy == original)
        // An update of meta alone (as an older build changing the key does) reaches the copy.
        try raw.query("UPDATE meta SET checksum = checksum WHERE id = 1")
        try raw.query("UPDATE meta SET wrapped_key = wrapped_key || x'00' WHERE id = 1")
        let (edited, editedCopy) = try copies(store)
        #expect(edited == editedCopy && edited != original)
    }

    /// Another store's header (same key) pasted into one copy: it unlocks too, but no row authenticates
    /// under its key; the store opens with neither copy, and salvage takes the copy whose key the rows
    /// authenticate under, and recovers everything.
    @Test(arguments: ["meta", "meta_copy"])
    func aForeignHeaderInOneCopyDoesNotCostTheItems(table: String) throws {
        let store = SalvageFixture(count: 40)
        try store.create()
        let other = StoreFixture()
        try FileBytes.writePrivate(FileBytes.read(store.fixture.keyFile), to: other.keyFile)
        _ = try other.open()
        let foreign = try other.raw().query("SELECT header, checksum, wrapped_key FROM meta")[0]
        let raw = try store.fixture.raw()
        let own = try raw.query("SELECT header, checksum, wrapped_key FROM meta")[0]
        try raw.query("UPDATE meta SET header = ?, checksum = ?, wrapped_key = ? WHERE id = 1", foreign)
        if table == "meta_copy" {
            try raw.query("UPDATE meta SET header = ?, checksum = ?, wrapped_key = ? WHERE id = 1", own)
            try raw.query("UPDATE meta_copy SET header = ?, checksum = ?, wrapped_key = ? WHERE id = 1", foreign)
        } else {
            try raw.query("UPDATE meta_copy SET header = ?, checksum = ?, wrapped_key = ? WHERE id = 1", own)
        }
        try raw.query("PRAGMA wal_checkpoint(TRUNCATE)")
        let open = #expect(throws: SecureStoreError.self) { _ = try store.fixture.open() }
        #expect(open?.isIntegrityFailure == true, "\(String(describing: open))")
        let result = try store.salvage()
        #expect(store.audit(result) == SalvageFixture.Audit(wrong: 0, right: 40))
        #expect(result.headerDamaged)
    }

    /// Read-only media: a store made before the copy opens and reads as before, and nothing is added.
    @Test(.enabled(if: Immutable.works)) func aStoreWithoutTheCopyOpensReadOnlyAndIsLeftAsItWas() throws {
        let store = SalvageFixture(count: 5)
        try store.create()
        do {
            let raw = try store.fixture.raw()
            for sql in ["DROP TRIGGER meta_copy_on_insert", "DROP TRIGGER meta_copy_on_update", "DROP TABLE meta_copy"] {
                try raw.query(sql)
            }
            try raw.query("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let before = FileBytes.read(store.fixture.path)
        let directory = (store.fixture.path as NSString).deletingLastPathComponent
        #expect(Immutable.set(directory, true))
        defer { _ = Immutable.set(directory, false) }
        var options = StoreOptions(passphraseCost: .interactive)
        options.onlyReads = true
        let handle = try SQLiteSecureItemStore.open(
            at: store.fixture.path, keySource: .keyFile(path: store.fixture.keyFile), options: options)
        #expect(readable(handle, count: 5) == 5)
        #expect(try handle.headerDamage() == nil)
        #expect(FileBytes.read(store.fixture.path) == before, "a read-only open changed the file")
        #expect(!FileManager.default.fileExists(atPath: store.fixture.walPath), "a read-only open made a log")
    }

    /// Two sound copies that differ: an old wrapped key (of a passphrase since changed) put back in one
    /// copy must not make the old passphrase open the store, nor may the store pick the other copy.
    @Test(arguments: ["meta", "meta_copy"])
    func copiesThatDifferOpenNothingAndSalvageStillRecovers(rolledBack table: String) throws {
        let store = SalvageFixture(count: 0)
        let first = try store.fixture.openWithPassphrase("old passphrase")
        try first.add(.genericPassword(service: "api", account: "alice"), data: secret("TOKEN"))
        let old = try store.fixture.raw().query("SELECT header, checksum, wrapped_key FROM meta")[0]
        try first.changeKey(to: .passphrase(secret("new passphrase")))
        try first.checkpoint()
        // The old record written into `table` only (an update of meta reaches the copy through its
        // trigger, so the copy is then put back).
        let raw = try store.fixture.raw()
        let current = try raw.query("SELECT header, checksum, wrapped_key FROM meta_copy")[0]
        if table == "meta" {
            try raw.query("UPDATE meta SET header = ?, checksum = ?, wrapped_key = ? WHERE id = 1", old)
            try raw.query("UPDATE meta_copy SET header = ?, checksum = ?, wrapped_key = ? WHERE id = 1", current)
        } else {
            try raw.query("UPDATE meta_copy SET header = ?, checksum = ?, wrapped_key = ? WHERE id = 1", old)
        }
        let (meta, copy) = try copies(store)
        #expect(meta != copy)
        #expect((table == "meta" ? meta : copy) == old)

        for passphrase in ["old passphrase", "new passphrase"] {
            let error = #expect(throws: SecureStoreError.self, "\(passphrase)") {
                _ = try store.fixture.openWithPassphrase(passphrase)
            }
            #expect(error?.isIntegrityFailure == true, "\(passphrase): \(String(describing: error))")
            #expect("\(String(describing: error))".contains("differ"))
        }
        #expect(SQLiteSecureItemStore.headerDamage(path: store.fixture.path)?.contains("differ") == true)
        // Salvage with the current passphrase brings the item back (items authenticate under the master
        // key, whichever copy wrapped it).
        let result = try StoreSalvage.recover(
            from: try SQLiteSalvageSource(path: store.fixture.path), keySource: .passphrase(secret("new passphrase")))
        #expect(result.items.count == 1)
        #expect(result.items.first?.data.text == "TOKEN")
    }
}

/// SplitMix64, for seeded page contents.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `chattr +i` on a directory: read-only even to root (as on read-only media), where the machine allows it.
private enum Immutable {
    /// Whether a directory can be made immutable here.
    static let works: Bool = {
        let directory = NSTemporaryDirectory() + "hardtack-immutable-probe-\(UUID().uuidString)"
        guard mkdir(directory, 0o700) == 0 else { return false }
        defer { rmdir(directory) }
        guard set(directory, true) else { return false }
        defer { _ = set(directory, false) }
        return !FileManager.default.createFile(atPath: directory + "/x", contents: nil)
    }()

    /// Sets or clears the immutable flag of `directory`; whether that worked.
    static func set(_ directory: String, _ immutable: Bool) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["chattr", immutable ? "+i" : "-i", directory]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
