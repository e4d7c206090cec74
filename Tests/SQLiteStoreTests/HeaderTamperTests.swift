import CSodium
import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore
import RawSQLite
import TestSupport
import Testing

/// The `meta` row: a damaged or edited header, checksum or wrapped key never opens the store, and
/// never makes it start over with a fresh key.
@Suite struct HeaderTamperTests {
    var fixture = StoreFixture()
    private let query = ItemAttributes.genericPassword(service: "api", account: "alice")

    /// Header layout: magic (3), version (1), store id (16), key kind (1), ops limit (8), mem limit (8),
    /// salt (16).
    private enum Offset {
        static let magic = 0
        static let version = 3
        static let storeID = 4
        static let keyKind = 20
        static let opsLimit = 21
        static let memLimit = 29
        static let salt = 37
        static let end = 53
    }

    private func createStore(passphrase: Bool) throws {
        let store = try passphrase ? fixture.openWithPassphrase("pass") : fixture.open()
        try store.add(query, data: secret("token"))
        try store.checkpoint()
    }

    private func open(passphrase: Bool) throws(SecureStoreError) -> SQLiteSecureItemStore {
        try passphrase ? fixture.openWithPassphrase("pass") : fixture.open()
    }

    private func checksum(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        crypto_generichash(&output, 32, bytes, UInt64(bytes.count), nil, 0)
        return output
    }

    /// Rewrites the header with `edit` applied, optionally recomputing its checksum as an attacker
    /// who knows the format would.
    private func editHeader(recomputeChecksum: Bool, _ edit: (inout [UInt8]) -> Void) throws {
        let raw = try fixture.raw()
        var header = try raw.blob("SELECT header FROM meta WHERE id = 1")
        edit(&header)
        try raw.query("UPDATE meta SET header = ? WHERE id = 1", [.blob(header)])
        if recomputeChecksum {
            try raw.query("UPDATE meta SET checksum = ? WHERE id = 1", [.blob(checksum(header))])
        }
    }

    @Test(arguments: [true, false])
    func anyByteOfTheHeaderChangedWithoutItsChecksumIsAnIntegrityFailure(passphrase: Bool) throws {
        try createStore(passphrase: passphrase)
        let pristine = try fixture.raw().blob("SELECT header FROM meta WHERE id = 1")
        #expect(pristine.count == Offset.end)
        for offset in 0..<Offset.end {
            try editHeader(recomputeChecksum: false) { $0 = pristine; $0[offset] ^= 0x01 }
            let error = #expect(throws: SecureStoreError.self, "byte \(offset)") { try open(passphrase: passphrase) }
            #expect(error?.isIntegrityFailure == true, "byte \(offset): \(String(describing: error))")
        }
        try editHeader(recomputeChecksum: false) { $0 = pristine }
        #expect(try open(passphrase: passphrase).findString(query) == "token")
    }

    @Test func truncatedExtendedOrEmptyHeadersAreIntegrityFailures() throws {
        try createStore(passphrase: true)
        let pristine = try fixture.raw().blob("SELECT header FROM meta WHERE id = 1")
        for edited in [Array(pristine.dropLast()), pristine + [0], [], Array(repeating: 0, count: pristine.count)] {
            try editHeader(recomputeChecksum: false) { $0 = edited }
            let error = #expect(throws: SecureStoreError.self) { try open(passphrase: true) }
            #expect(error?.isIntegrityFailure == true)
        }
    }

    @Test func aDamagedChecksumIsAnIntegrityFailure() throws {
        try createStore(passphrase: true)
        let raw = try fixture.raw()
        var sum = try raw.blob("SELECT checksum FROM meta WHERE id = 1")
        sum[5] ^= 0x80
        try raw.query("UPDATE meta SET checksum = ? WHERE id = 1", [.blob(sum)])
        let error = #expect(throws: SecureStoreError.self) { try open(passphrase: true) }
        #expect(error?.isIntegrityFailure == true)
    }

    /// With the checksum recomputed, the header still binds the wrapped key as its additional data:
    /// weakening the KDF, changing the salt or the store id never opens the store (it looks like a
    /// wrong key, which is all that can be known), and out-of-range costs are refused before Argon2id runs.
    @Test func aHeaderEditedWithARecomputedChecksumStillNeverOpens() throws {
        try createStore(passphrase: true)
        let pristine = try fixture.raw().blob("SELECT header FROM meta WHERE id = 1")
        func set(_ offset: Int, _ value: UInt64) -> (inout [UInt8]) -> Void {
            { header in
                for index in 0..<8 { header[offset + index] = UInt8(truncatingIfNeeded: value >> (56 - 8 * index)) }
            }
        }
        let edits: [(String, (inout [UInt8]) -> Void)] = [
            ("weaker ops limit", set(Offset.opsLimit, 1)),
            ("weaker mem limit", set(Offset.memLimit, 8192)),
            ("huge mem limit", set(Offset.memLimit, 1 << 40)),
            ("huge ops limit", set(Offset.opsLimit, 1 << 40)),
            ("salt", { $0[Offset.salt + 3] ^= 0x10 }),
            ("store id", { $0[Offset.storeID] ^= 0x10 }),
            ("key kind", { $0[Offset.keyKind] = 2 }),
            ("unknown key kind", { $0[Offset.keyKind] = 9 }),
        ]
        for (name, edit) in edits {
            try editHeader(recomputeChecksum: true) { $0 = pristine; edit(&$0) }
            let error = #expect(throws: SecureStoreError.self, "\(name)") { try open(passphrase: true) }
            let refused =
                error == .wrongKey || error?.isIntegrityFailure == true || error?.isKeySourceMismatch == true
            #expect(refused, "\(name): \(String(describing: error))")
        }
        try editHeader(recomputeChecksum: true) { $0 = pristine }
        #expect(try open(passphrase: true).findString(query) == "token")
    }

    /// The format byte changed to every other format (down to one whose digests are plain, or up),
    /// checksum recomputed: opening is damage naming both formats, not a wrong key, for the key does
    /// unwrap under the real format; a wrong passphrase is still a wrong key; and salvage, which tries
    /// the other formats too, brings the item back and says the header was damaged.
    @Test(arguments: [true, false], [UInt8(2), StoreHeader.currentVersion])
    func aChangedFormatByteIsDamageNotAWrongKey(passphrase: Bool, storeFormat: UInt8) throws {
        var suite = self
        suite.fixture = StoreFixture(format: storeFormat)
        try suite.createStore(passphrase: passphrase)
        let pristine = try suite.fixture.raw().blob("SELECT header FROM meta WHERE id = 1")
        #expect(pristine[Offset.version] == storeFormat)
        for format in StoreHeader.oldestVersion...StoreHeader.currentVersion where format != storeFormat {
            try suite.editHeader(recomputeChecksum: true) { $0 = pristine; $0[Offset.version] = format }
            let error = #expect(throws: SecureStoreError.self, "format \(format)") { try suite.open(passphrase: passphrase) }
            #expect(error?.isIntegrityFailure == true, "format \(format): \(String(describing: error))")
            #expect(String(describing: error).contains("format \(format)"))
            if passphrase {
                #expect(throws: SecureStoreError.wrongKey) { try suite.fixture.openWithPassphrase("wrong") }
            }
            let salvaged = try StoreSalvage.recover(
                from: try SQLiteSalvageSource(path: suite.fixture.path),
                keySource: passphrase ? .passphrase(secret("pass")) : .keyFile(path: suite.fixture.keyFile))
            #expect(salvaged.items.map(\.data.text) == ["token"] && salvaged.headerDamaged, "format \(format)")
        }
        try suite.editHeader(recomputeChecksum: true) { $0 = pristine }
        #expect(try suite.open(passphrase: passphrase).findString(query) == "token")
    }

    /// A damaged wrapped key is damage, not a wrong passphrase (the checksum covers it): found by the
    /// torture bench, where byte flips in the wrapped key told the user their key was wrong.
    @Test(arguments: [true, false])
    func aDamagedWrappedKeyIsAnIntegrityFailureNotAWrongKey(passphrase: Bool) throws {
        try createStore(passphrase: passphrase)
        let raw = try fixture.raw()
        let wrapped = try raw.blob("SELECT wrapped_key FROM meta WHERE id = 1")
        for edited in [Array(wrapped.dropLast()), [], wrapped.enumerated().map { $0 == 30 ? $1 ^ 1 : $1 }] {
            try raw.query("UPDATE meta SET wrapped_key = ? WHERE id = 1", [.blob(edited)])
            let error = #expect(throws: SecureStoreError.self) { try open(passphrase: passphrase) }
            #expect(error?.isIntegrityFailure == true, "\(String(describing: error))")
        }
    }

    /// An attacker can recompute the unkeyed checksum, but not unwrap an edited key: it never opens.
    @Test func aWrappedKeyEditedWithARecomputedChecksumNeverOpens() throws {
        try createStore(passphrase: true)
        let raw = try fixture.raw()
        let header = try raw.blob("SELECT header FROM meta WHERE id = 1")
        var wrapped = try raw.blob("SELECT wrapped_key FROM meta WHERE id = 1")
        wrapped[40] ^= 0x04
        try raw.query(
            "UPDATE meta SET wrapped_key = ?, checksum = ? WHERE id = 1",
            [.blob(wrapped), .blob(checksum(header + wrapped))])
        #expect(throws: SecureStoreError.wrongKey) { try open(passphrase: true) }
    }

    /// Stores written before the checksum covered the wrapped key (a checksum of the header alone) still
    /// open, and a change of key writes the current form.
    @Test func aStoreWithTheEarlierChecksumStillOpens() throws {
        try createStore(passphrase: true)
        let raw = try fixture.raw()
        let header = try raw.blob("SELECT header FROM meta WHERE id = 1")
        try raw.query("UPDATE meta SET checksum = ? WHERE id = 1", [.blob(checksum(header))])
        let store = try open(passphrase: true)
        #expect(try store.findString(query) == "token")
        try store.changeKey(to: .passphrase(secret("pass")))
        let rewritten = try raw.query("SELECT header, checksum, wrapped_key FROM meta WHERE id = 1")[0]
        let newHeader = rewritten[0].bytes ?? []
        #expect(rewritten[1].bytes == checksum(newHeader + (rewritten[2].bytes ?? [])))
    }

    /// Both copies of the header gone (one alone is damage the other copy covers: HeaderCopyTests).
    @Test(arguments: ["DELETE FROM", "DROP TABLE"])
    func aMissingHeaderIsAnIntegrityFailureNotANewStore(sql: String) throws {
        try createStore(passphrase: false)
        for table in ["meta", "meta_copy"] { try fixture.raw().query("\(sql) \(table)") }
        for _ in 0..<2 {
            let error = #expect(throws: SecureStoreError.self) { try open(passphrase: false) }
            #expect(error?.isIntegrityFailure == true)
        }
        let raw = try fixture.raw()
        #expect(try raw.value("SELECT count(*) FROM items") == .integer(1))
        let metaTables = try raw.query("SELECT name FROM sqlite_master WHERE name IN ('meta', 'meta_copy')").count
        #expect(metaTables == (sql.hasPrefix("DROP") ? 0 : 2))
        if sql.hasPrefix("DELETE") {
            #expect(try raw.value("SELECT count(*) FROM meta") == .integer(0))
            #expect(try raw.value("SELECT count(*) FROM meta_copy") == .integer(0))
        }
    }

    @Test func aDatabaseThatIsNotAStoreIsLeftAlone() throws {
        do {
            let foreign = try RawDatabase(path: fixture.path, create: true, checksums: false)
            try foreign.query("CREATE TABLE notes (body TEXT)")
            try foreign.query("INSERT INTO notes VALUES ('hello')")
        }
        #expect(chmod(fixture.path, 0o600) == 0)
        let before = FileBytes.read(fixture.path)
        let error = #expect(throws: SecureStoreError.self) { try open(passphrase: false) }
        #expect(error?.isIntegrityFailure == true)
        #expect(fileIsUnchanged(fixture.path, before))
        #expect(try fixture.raw().query("SELECT name FROM sqlite_master").count == 1)
    }

    @Test func aFileThatIsNotADatabaseIsAnIntegrityFailure() throws {
        try FileBytes.writePrivate(Array(repeating: 0x41, count: 8192), to: fixture.path)
        let error = #expect(throws: SecureStoreError.self) { try open(passphrase: false) }
        #expect(error?.isIntegrityFailure == true)
        #expect(fileIsUnchanged(fixture.path, Array(repeating: 0x41, count: 8192)))
    }

    @Test func theHeaderOfAnotherStoreDoesNotOpenThisOnesItems() throws {
        // Two stores with the same passphrase: B's meta row pasted into A opens with the passphrase, but
        // unlocks B's master key and B's store id, so A's items are neither found by B's blind indexes
        // nor decrypted, and A's rows do not match their digest under B's key: damaged, never "not found".
        try createStore(passphrase: true)
        let other = StoreFixture()
        do {
            let store = try other.openWithPassphrase("pass")
            try store.add(query, data: secret("other token"))
        }
        let foreign = try other.raw().query("SELECT header, checksum, wrapped_key FROM meta")[0]
        try fixture.raw().query("UPDATE meta SET header = ?, checksum = ?, wrapped_key = ?", foreign)
        let store = try open(passphrase: true)
        // Nothing is found by B's indexes, and the rows do not match B's digest: damage, not absence.
        for read in [{ _ = try store.findString(query) }, { _ = try store.find(.genericPassword(), limit: .all) }] {
            let error = #expect(throws: SecureStoreError.self) { try read() }
            #expect(error?.isIntegrityFailure == true)
        }
        let report = try store.verify()
        #expect(report.damagedItems == 1)
        #expect(report.soundItems == 0)
        #expect(!report.isSound)
    }
}
