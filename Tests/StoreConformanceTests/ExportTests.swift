import Data
import Domain
import Foundation
import StoreCore
import TestSupport
import Testing

/// Export and import: every class and attribute round-trips between stores of every adapter, and an
/// export file changed anywhere is refused whole, with nothing imported.
struct ExportTests {
    /// One item of every class, with most of its attributes.
    static let samples: [(ItemAttributes, String)] = [
        (.genericPassword(service: "api", account: "alice", label: "API", comment: "work", generic: [1, 2]), "g-secret"),
        (
            .internetPassword(
                server: "example.com", account: "bob", protocol: .https, port: 443, path: "/login",
                securityDomain: "realm", authenticationType: .httpBasic, label: "site"), "i-secret"
        ),
        (.certificate(certificateType: 3, issuer: [9, 9], serialNumber: [1], subject: [7], label: "cert"), "c-bytes"),
        (.identity(certificateType: 3, issuer: [8], serialNumber: [2], subject: [6], label: "id"), "id-bytes"),
        (.key(keyClass: .private, keyType: .ec, applicationLabel: [4], applicationTag: [5], keySizeInBits: 256), "k-bytes"),
    ]

    private static func fill(_ store: any StoreHandle) throws {
        for (attributes, data) in samples { try store.add(attributes, data: secret(data)) }
    }

    /// A private 32-byte key file for exports.
    private static func exportKeyFile(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.file("export.key")
        let key = (0..<32).map { _ in UInt8.random(in: 0...255) }
        try #require(FileManager.default.createFile(atPath: path, contents: Data(key), attributes: [.posixPermissions: 0o600]))
        return path
    }

    @Test(arguments: StoreAdapter.all)
    func everyClassAndAttributeRoundTrips(adapter: StoreAdapter) throws {
        let source = try ConformanceFixture(adapter)
        let target = try ConformanceFixture(adapter)
        // Dated long before the import, which keeps the export's dates rather than setting its own.
        let from = try source.open(now: { ExportRoundTripTests.past })
        try Self.fill(from)
        let path = source.directory.file("items.htk")
        let written = try StoreExport.write(
            from: from, to: path, key: .passphrase(secret("export pass")), cost: .interactive)
        #expect(written == Self.samples.count)
        let file = FileBytes.read(path)
        for (attributes, data) in Self.samples {
            for text in [data] + attributes.values.values.compactMap(\.stringValue) where text.count > 2 {
                #expect(!FileBytes.contains(file, Array(text.utf8)), "plaintext in the export")
            }
        }
        let to = try target.open()
        let items = try StoreExport.read(from: path, key: .passphrase(secret("export pass")))
        #expect(try StoreExport.add(items, to: to, update: false) == .init(added: Self.samples.count, updated: 0))
        for (attributes, data) in Self.samples {
            let original = try from.item(attributes)
            let copy = try to.item(attributes)
            #expect(copy.data?.text == data)
            let expected = try #require(original.attributes).values
            #expect(expected[.creationDate] == .date(ExportRoundTripTests.past))
            #expect(try #require(copy.attributes).values == expected)
        }
    }

    @Test(arguments: StoreAdapter.all)
    func aDuplicateIsRefusedUnlessUpdatingAndThenTheCreationDateStays(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        try Self.fill(store)
        let path = fixture.directory.file("items.htk")
        let key = ExportKey.keyFile(path: try Self.exportKeyFile(fixture.directory))
        _ = try StoreExport.write(from: store, to: path, key: key)
        let created = try store.item(Self.samples[0].0).attributes?[.creationDate]
        let exported = try store.item(Self.samples[0].0).attributes?[.modificationDate]
        try store.update(Self.samples[0].0, attributes: ItemAttributes(.genericPassword, [.description: .string("new")]), data: secret("changed"))
        try store.add(.genericPassword(service: "only", account: "here"), data: secret("x"))
        let items = try StoreExport.read(from: path, key: key)
        let before = fixture.persistedState
        #expect(throws: SecureStoreError.duplicateItem) { try StoreExport.add(items, to: store, update: false) }
        #expect(fixture.persistedState == before, "a refused import must change nothing")
        #expect(try StoreExport.add(items, to: store, update: true) == .init(added: 0, updated: Self.samples.count))
        let restored = try store.item(Self.samples[0].0)
        #expect(restored.data?.text == Self.samples[0].1)
        #expect(restored.attributes?[.creationDate] == created)
        // The export's attributes replace the item's (the description added since is gone), with the
        // export's modification date.
        #expect(restored.attributes?[.description] == nil)
        #expect(restored.attributes?[.modificationDate] == exported)
        #expect(try store.item(.genericPassword(service: "only", account: "here")).data?.text == "x")
    }

    @Test func anExportChangedAnywhereIsRefusedWhole() throws {
        let fixture = try ConformanceFixture(.sqlite)
        let store = try fixture.open()
        try store.add(.genericPassword(service: "a", account: "1"), data: secret("one"))
        try store.add(.genericPassword(service: "b", account: "2"), data: secret("two"))
        let path = fixture.directory.file("items.htk")
        let key = ExportKey.keyFile(path: try Self.exportKeyFile(fixture.directory))
        _ = try StoreExport.write(from: store, to: path, key: key)
        let original = FileBytes.read(path)
        let damaged = fixture.directory.file("damaged.htk")
        // A changed file is damage (an integrity failure), never a wrong key: the key file's check
        // does not depend on the header, whose every other byte the header MAC covers.
        func refusal(_ bytes: [UInt8]) -> SecureStoreError? {
            _ = FileManager.default.createFile(atPath: damaged, contents: Data(bytes))
            do {
                _ = try StoreExport.read(from: damaged, key: key)
                return nil
            } catch {
                return error
            }
        }
        func refusedAsDamage(_ bytes: [UInt8]) -> Bool { refusal(bytes)?.isIntegrityFailure ?? false }
        // Every single-bit flip, at every byte.
        let version = 8  // after the 8-byte magic
        for offset in original.indices {
            var bytes = original
            bytes[offset] ^= 0x01 << UInt8(offset % 8)
            let error = refusal(bytes)
            if offset == version {
                // A version this code does not read: a newer hardtack's, or a changed byte.
                #expect(error?.isNewerFormat == true || error?.isIntegrityFailure == true, "version flip: \(String(describing: error))")
            } else {
                #expect(error?.isIntegrityFailure == true, "a flip at byte \(offset) gave \(String(describing: error))")
            }
        }
        // Every shorter file, and one with a byte appended.
        for length in 0..<original.count { #expect(refusedAsDamage(Array(original[0..<length])), "cut at \(length)") }
        #expect(refusedAsDamage(original + [0]))
        // The two item frames swapped: each authenticates alone, but not in that order.
        let header = ExportFormat.headerBytes
        func frame(at offset: Int) -> Range<Int> {
            let length = original[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            return offset..<(offset + 4 + length)
        }
        let first = frame(at: header)
        let second = frame(at: first.upperBound)
        let swapped =
            Array(original[0..<header]) + Array(original[second]) + Array(original[first])
            + Array(original[second.upperBound...])
        #expect(refusedAsDamage(swapped))
        // And the right file still reads.
        #expect(try StoreExport.read(from: path, key: key).count == 2)
    }

    @Test func anExistingFileIsKeptUnlessReplacing() throws {
        let fixture = try ConformanceFixture(.memory)
        let store = try fixture.open()
        try store.add(.genericPassword(service: "a"), data: secret("one"))
        let path = fixture.directory.file("items.htk")
        try FileBytes.write(Array("older".utf8), to: path)
        let key = ExportKey.keyFile(path: try Self.exportKeyFile(fixture.directory))
        #expect(throws: SecureStoreError.self) { try StoreExport.write(from: store, to: path, key: key) }
        #expect(FileBytes.read(path) == Array("older".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path).filter { $0.contains(".tmp-") } == [])
        #expect(try StoreExport.write(from: store, to: path, key: key, replacing: true) == 1)
        #expect(try StoreExport.read(from: path, key: key).count == 1)
    }

    @Test func theWrongExportKeyIsWrongKey() throws {
        let fixture = try ConformanceFixture(.memory)
        let store = try fixture.open()
        try store.add(.genericPassword(service: "a"), data: secret("one"))
        let path = fixture.directory.file("items.htk")
        _ = try StoreExport.write(from: store, to: path, key: .passphrase(secret("right")), cost: .interactive)
        #expect(throws: SecureStoreError.wrongKey) { try StoreExport.read(from: path, key: .passphrase(secret("wrong"))) }
        #expect(throws: SecureStoreError.self) {
            try StoreExport.read(from: path, key: .keyFile(path: try Self.exportKeyFile(fixture.directory)))
        }
    }
}
