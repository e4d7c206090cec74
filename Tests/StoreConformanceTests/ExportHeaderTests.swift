import Data
import Domain
import Foundation
import StoreCore
import TestSupport
import Testing

/// What a changed byte in an export's header is reported as, under a passphrase: a wrong key only
/// where no key could tell (the salt and the cost, which the passphrase's key is derived from), a
/// changed header everywhere else.
struct ExportHeaderTests {
    /// Where each field starts in a version-2 header.
    private static let kind = 9
    private static let cost = 10
    private static let salt = 26
    private static let check = 42
    private static let mac = 58
    private static let stream = 74

    @Test func aChangedHeaderIsDamageUnlessNoKeyCouldTell() throws {
        let fixture = try ConformanceFixture(.memory)
        let store = try fixture.open()
        try store.add(.genericPassword(service: "a"), data: secret("one"))
        let path = fixture.directory.file("items.htk")
        let key = ExportKey.passphrase(secret("right"))
        _ = try StoreExport.write(from: store, to: path, key: key, cost: .interactive)
        let original = FileBytes.read(path)
        #expect(original[8] == 3, "version 3 is written")
        #expect(Self.stream + SecretStream.headerBytes == ExportFormat.headerBytes)
        let damaged = fixture.directory.file("damaged.htk")
        func refusal(flipping offset: Int, bit: Int = 0) throws -> SecureStoreError? {
            var bytes = original
            bytes[offset] ^= UInt8(1) << UInt8(bit)
            try FileBytes.write(bytes, to: damaged)
            do {
                _ = try StoreExport.read(from: damaged, key: key)
                return nil
            } catch {
                return error
            }
        }
        // The salt: the key derived from it differs, as a wrong passphrase's would.
        for offset in [Self.salt, Self.salt + 15] { #expect(try refusal(flipping: offset) == .wrongKey) }
        // The cost: the same (opslimit 2 → 3), or, where Argon2id ignores the change (memlimit's lowest
        // bit), the MAC finds it.
        #expect(try refusal(flipping: Self.cost + 7) == .wrongKey)
        #expect(try refusal(flipping: Self.cost + 15)?.isIntegrityFailure == true)
        // The kind (a single flip never gives the other valid kind), the check, the MAC and the stream
        // header: the right key shows the header was changed.
        for offset in [Self.kind, Self.check, Self.check + 15, Self.mac, Self.mac + 15, Self.stream, Self.stream + 23] {
            for bit in [0, 7] {
                let error = try refusal(flipping: offset, bit: bit)
                #expect(error?.isIntegrityFailure == true, "byte \(offset) bit \(bit): \(String(describing: error))")
            }
        }
        // A wrong passphrase is a wrong key.
        #expect(throws: SecureStoreError.wrongKey) { try StoreExport.read(from: path, key: .passphrase(secret("wrong"))) }
        #expect(try StoreExport.read(from: path, key: key).count == 1)
    }

    @Test func aVersionOneExportIsStillRead() throws {
        // A version-1 file as the first export code wrote it: no header MAC, the key check a keyed hash
        // of the salt under the stream key; here with no items, its final message alone.
        let directory = TemporaryDirectory()
        let keyPath = directory.file("export.key")
        try FileBytes.writePrivate((0..<32).map { _ in UInt8.random(in: 0...255) }, to: keyPath)
        let key = ExportKey.keyFile(path: keyPath)
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let cost = Argon2Cost.interactive
        let streamKey = try ExportFormat.streamKey(key, salt: salt, cost: cost)
        let writer = try SecretStream.Writer(key: streamKey)
        var header = Array("HTKEXPRT".utf8) + [1, 2]
        for value in [cost.opsLimit, UInt64(cost.memLimit)] { withUnsafeBytes(of: value.bigEndian) { header += $0 } }
        header += salt
        header += try Sodium.keyedHash(Array("HTK-export-check".utf8) + salt, key: streamKey, length: 16)
        header += writer.header
        let end = Array("END".utf8) + [UInt8](repeating: 0, count: 8)
        let final = try end.withUnsafeBytes { try writer.seal($0, additionalData: header, final: true) }
        let length = UInt32(final.count)
        let path = directory.file("v1.htk")
        try FileBytes.write(header + withUnsafeBytes(of: length.bigEndian) { Array($0) } + final, to: path)
        #expect(try StoreExport.read(from: path, key: key).isEmpty)
        var changed = FileBytes.read(path)
        changed[30] ^= 1  // the salt: under version 1, a wrong key is all that can be said
        try FileBytes.write(changed, to: path)
        #expect(throws: SecureStoreError.wrongKey) { try StoreExport.read(from: path, key: key) }
    }
}
