import Data
import Domain
import Foundation
import RawSQLite
import SQLiteStore
import StoreCore
import TestSupport
import Testing

/// The two row layouts (`RowFormat`): a new store writes joint rows (one ciphertext, an empty `attrs`
/// column); a store of format 1 keeps writing two ciphertexts, through key changes too; every row of
/// either layout reads, a malformed joint plaintext is damage, and a cell moved between layouts is
/// damage, never another item's value.
@Suite struct RowFormatTests {
    private let item = ItemAttributes.genericPassword(service: "com.example.api", account: "user0000001@example.com")
    private let other = ItemAttributes.genericPassword(service: "com.example.api", account: "other@example.com")
    /// A 614-byte secret, the benchmark's JWT-shaped size.
    private let token = String(repeating: "t", count: 614)

    /// The lengths of row `id`'s `attrs` and `data` columns.
    private func lengths(_ fixture: StoreFixture, _ id: Int64) throws -> (attrs: Int, data: Int) {
        let row = try fixture.raw().query("SELECT length(attrs), length(data) FROM items WHERE id = ?", [.integer(id)])[0]
        guard case .integer(let attrs) = row[0], case .integer(let data) = row[1] else {
            throw RawDatabase.Failure(description: "no lengths")
        }
        return (Int(attrs), Int(data))
    }

    @Test func aNewStoreWritesOneCiphertextPerRowAndReadsItBack() throws {
        let fixture = StoreFixture()
        do {
            let store = try fixture.open()
            try store.add(item, data: secret(token))
            #expect(try store.find(item, limit: .one, returning: .data).first?.text == token)
        }
        let sizes = try lengths(fixture, 1)
        // Compact attributes (70 bytes) and the secret (614) with a length byte, padded to 704: 744 with
        // the nonce and the tag, where format 1 writes 168 + 680.
        #expect(sizes.attrs == 0)
        #expect(sizes.data == 24 + 704 + 16)
        let store = try fixture.open()
        let found = try store.find(item, limit: .one, returning: .all)
        #expect(found.first?.attributes?.string(.account) == "user0000001@example.com")
        #expect(found.first?.attributes?.string(.accessGroup) == "default")
        #expect(found.first?.text == token)
    }

    @Test func aFormatOneStoreKeepsItsLayoutThroughWritesReopensAndKeyChanges() throws {
        var fixture = StoreFixture()
        fixture.format = 1
        do {
            let store = try fixture.open()
            try store.add(item, data: secret(token))
            try store.add(other, data: secret("OTHER"))
            // The refresh path (new data by unique key) and the general one (an attribute change).
            #expect(try store.update(item, attributes: nil, data: secret("NEW")) == 1)
            #expect(try store.update(other, attributes: try ItemAttributes(.genericPassword, [.label: .string("l")]), data: nil) == 1)
        }
        #expect(try lengths(fixture, 1) == (attrs: 168, data: 104))
        #expect(try lengths(fixture, 2).attrs > 0)
        // Reopened by a handle whose new stores would be of the current format: still format 1.
        var current = fixture
        current.format = StoreHeader.currentVersion
        do {
            let store = try current.open()
            try store.add(ItemAttributes.genericPassword(service: "s", account: "third"), data: secret("THIRD"))
        }
        #expect(try lengths(fixture, 3).attrs > 0)
        // A key change keeps the format too: the Hardtack that made the store can still open it.
        let newKey = fixture.directory.file("new.key")
        do {
            let store = try current.open()
            try store.changeKey(to: .keyFile(path: newKey))
            #expect(try store.update(item, attributes: nil, data: secret("AFTER")) == 1)
            try store.add(ItemAttributes.genericPassword(service: "s", account: "fourth"), data: secret("FOURTH"))
        }
        let header = try fixture.raw().blob("SELECT header FROM meta WHERE id = 1")
        #expect(header[3] == 1, "the header's format")
        for id: Int64 in 1...4 { #expect(try lengths(fixture, id).attrs > 0, "row \(id)") }
        let store = try fixture.openWithKeyFile(newKey)
        #expect(try store.find(item, limit: .one, returning: .data).first?.text == "AFTER")
        #expect(try store.find(other, limit: .one, returning: .all).first?.attributes?.string(.label) == "l")
        #expect(try store.find(.genericPassword(service: "s"), limit: .all, returning: .data).count == 2)
        let report = try store.verify()
        #expect(report.isSound && report.soundItems == 4)
    }

    /// A rotation seals every row and digest again, so it moves a store of format 2 or 3 to the current
    /// format (joint rows already; digests sealed, and counting ciphertexts); a format-1 store, whose
    /// rows have another layout, keeps its format and its plain digest.
    @Test(arguments: [UInt8(1), 2, 3, StoreHeader.currentVersion])
    func aRotationMovesJointRowStoresToTheCurrentFormat(format: UInt8) throws {
        var fixture = StoreFixture()
        fixture.format = format
        do {
            let store = try fixture.open()
            try store.add(item, data: secret(token))
            try store.add(other, data: secret("OTHER"))
        }
        let digestBefore = try fixture.raw().blob("SELECT value FROM rows_digest")
        let newKey = fixture.directory.file("new.key")
        do {
            let store = try fixture.open()
            #expect(try store.rotateKey(to: .keyFile(path: newKey)) == 2)
        }
        let after = format == 1 ? format : StoreHeader.currentVersion
        #expect(try fixture.raw().blob("SELECT header FROM meta WHERE id = 1")[3] == after, "the header's format")
        #expect(try fixture.raw().blob("SELECT header FROM meta_copy WHERE id = 1")[3] == after, "the copy's format")
        if format == 1 {
            #expect(try lengths(fixture, 1) == (attrs: 168, data: 680), "a format-1 row stays two ciphertexts")
        }
        // Plain in format 1; sealed from format 3, which a format-2 store now is past.
        let digestAfter = try fixture.raw().blob("SELECT value FROM rows_digest")
        // (From format 4 the store's digest also carries its write generation: 8 bytes.)
        #expect(digestAfter.count == (format == 1 ? digestBefore.count : RowsDigest.sealedBytes + 8))
        #expect(digestAfter != digestBefore)
        let store = try fixture.openWithKeyFile(newKey)
        #expect(try store.findString(item) == token)
        #expect(try store.findString(other) == "OTHER")
        #expect(try store.verify().isSound)
    }

    @Test func aJointRowsCiphertextMovedToAnotherRowIsDamage() throws {
        let fixture = StoreFixture()
        do {
            let store = try fixture.open()
            try store.add(item, data: secret("FIRST"))
            try store.add(other, data: secret("SECOND"))
        }
        try fixture.raw().swapItemColumn("data", 1, 2)
        let store = try fixture.open()
        for query in [item, other] {
            for parts: ItemParts in [.data, .attributes, .all] {
                let error = #expect(throws: SecureStoreError.self) { try store.find(query, limit: .one, returning: parts) }
                #expect(error?.isIntegrityFailure == true)
            }
        }
    }

    @Test func aCellMovedBetweenLayoutsIsDamage() throws {
        var old = StoreFixture()
        old.format = 1
        let fresh = StoreFixture()
        for fixture in [old, fresh] {
            let store = try fixture.open()
            try store.add(item, data: secret("FIRST"))
            try store.add(other, data: secret("SECOND"))
        }
        // A format-1 row whose attributes are emptied reads as joint and fails; a joint row given a
        // format-1 attributes cell reads as format 1 and fails.
        try old.raw().setItemColumn("attrs", of: 1, to: .blob([]))
        let foreign = try old.raw().value("SELECT attrs FROM items WHERE id = 2")
        try fresh.raw().setItemColumn("attrs", of: 1, to: foreign)
        for fixture in [old, fresh] {
            let store = try fixture.open()
            for parts: ItemParts in [.data, .attributes, .all] {
                let error = #expect(throws: SecureStoreError.self) { try store.find(item, limit: .one, returning: parts) }
                #expect(error?.isIntegrityFailure == true)
            }
            if fixture.format >= 4 {
                // The digest counts ciphertexts, and no longer matches: every find is damage (see
                // `RowRollbackTests`).
                #expect(throwsIntegrityFailure { _ = try store.find(other, limit: .one, returning: .data) })
            } else {
                #expect(try store.find(other, limit: .one, returning: .data).first?.text == "SECOND")
            }
            let report = try store.verify()
            #expect(report.damagedItems == 1 && report.damaged.map(\.rowID) == [1])
        }
    }

    /// Joint plaintexts that authenticate but are malformed (only something holding the key could
    /// write one): a length trailer that never ends or claims more than is there, and attributes that
    /// do not decode, are damage, never a crash or a wrong value.
    @Test func anAuthenticatedButMalformedJointPlaintextIsDamage() throws {
        let keys = try ItemKeys(master: try SecureKey.random(), storeID: Sodium.randomBytes(16), formatVersion: 3)
        let cells = IndexCells(
            group: BlindIndex(count: 16), unique: BlindIndex(count: 16), primary: BlindIndex(count: 8))
        var attributes: [UInt8] = []
        CompactAttributeCodec.encode(.genericPassword(service: "s", account: "a"), into: &attributes)
        let plaintexts: [[UInt8]] = [
            [], [0x80], [0x80, 0x80, 0x80, 0x80, 0x80, 0x80], [9], Array("secret".utf8) + [2, 1, 9],
            Array("secret".utf8) + [ItemClass.genericPassword.rawValue, 99, 2],
            Array("secret".utf8) + attributes + [UInt8(attributes.count + 7)],
        ]
        for plaintext in plaintexts {
            var row = ItemRow(id: 1, itemClass: .genericPassword, cells: cells)
            row.sealedData = try keys.withAdditionalData(column: ItemRow.jointColumn, row: row) {
                additionalData throws(SecureStoreError) in
                try plaintext.withUnsafeBytes { raw in
                    Result { () throws(SecureStoreError) in
                        try Sodium.sealPadded(
                            raw, block: ItemRow.paddingBlock, additionalData: additionalData, key: keys.data,
                            nonce: Sodium.randomBytes(Sodium.nonceBytes)[...])
                    }
                }.get()
            }
            let error = #expect(throws: SecureStoreError.self, "\(plaintext)") { _ = try RowOpening.both(row, keys: keys) }
            #expect(error?.isIntegrityFailure == true)
        }
        // The same row sealed whole opens: the failures above are the plaintexts'.
        var row = ItemRow(id: 1, itemClass: .genericPassword, cells: cells)
        try JointEnvelope.seal(&row, .genericPassword(service: "s", account: "a"), data: secret("secret"), keys: keys)
        #expect(try RowOpening.both(row, keys: keys).data.text == "secret")
    }

    @Test func aHeaderOfALaterFormatIsRefusedAsNewer() throws {
        var fixture = StoreFixture()
        fixture.format = StoreHeader.currentVersion + 1
        // The open that makes it may refuse it already; the next one must.
        _ = try? fixture.open()
        let error = #expect(throws: SecureStoreError.self) { _ = try fixture.open() }
        #expect(error?.isNewerFormat == true, "\(String(describing: error))")
    }
}
