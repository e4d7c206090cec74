import Data
import Domain
import Foundation
import StoreCore
import TestSupport
import Testing

/// An export shows each item's size only to a 64-byte bucket (the store's own, `ItemRow.paddingBlock`):
/// every item's message is padded before it is sealed, so two exports whose secrets differ by a few
/// bytes are the same size, while each byte of every secret comes back. Exports of version 2, which
/// showed each size exactly, are still read.
struct ExportPaddingTests {
    private static let when = Date(timeIntervalSince1970: 1_700_000_000)
    private static let item = ItemAttributes.genericPassword(service: "api", account: "alice")

    /// The bytes of an export, in layout `version`, of a store holding ``item`` with `data`.
    private static func export(_ data: [UInt8], version: UInt8 = ExportFormat.version) throws -> [UInt8] {
        let fixture = try ConformanceFixture(.memory)
        let store = try fixture.open(now: { when })
        try store.add(item, data: SecretBytes(count: data.count) { $0.copyBytes(from: data) })
        let path = fixture.directory.file("items.htk")
        _ = try StoreExport.write(
            from: store, to: path, key: .passphrase(secret("export")), cost: .interactive, version: version)
        return FileBytes.read(path)
    }

    /// A secret of `count` bytes, every byte from `seed`.
    private static func secretBytes(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    @Test func twoExportsWhoseSecretsDifferByAFewBytesAreTheSameSize() throws {
        let short = try Self.export(Self.secretBytes(40))
        let long = try Self.export(Self.secretBytes(47))
        #expect(short[8] == 3 && long[8] == 3)
        #expect(short.count == long.count, "40 and 47 bytes of secret: \(short.count) and \(long.count) bytes of export")
        // The attack as it worked on version 2: the difference in the secrets' sizes, to the byte.
        let shortBefore = try Self.export(Self.secretBytes(40), version: 2)
        let longBefore = try Self.export(Self.secretBytes(47), version: 2)
        #expect(longBefore.count - shortBefore.count == 7)
    }

    @Test func aSizeShowsOnlyItsBucket() throws {
        // One item's message is its padded record and the stream's 17 bytes: every size in a bucket
        // gives one file size, and the next bucket is 64 bytes more.
        let sizes = try (0...140).map { try Self.export(Self.secretBytes($0)).count }
        #expect(Set(sizes).count <= 4, "\(Set(sizes).sorted())")
        let distinct = Set(sizes).sorted()
        for (smaller, larger) in zip(distinct, distinct.dropFirst()) { #expect(larger - smaller == 64) }
    }

    @Test func aRoundTripKeepsEveryByte() throws {
        let directory = TemporaryDirectory()
        let fixture = try ConformanceFixture(.memory)
        let store = try fixture.open(now: { Self.when })
        // Secrets that end as padding does (0x80, zeros), that fill a bucket exactly, and empty ones.
        var secrets: [String: [UInt8]] = [:]
        for count in [0, 1, 40, 47, 50, 51, 63, 64, 65, 127, 128, 1000] {
            for tail: [UInt8] in [[], [0x80], [0x80, 0], [0, 0, 0]] where count >= tail.count {
                let bytes = Self.secretBytes(count - tail.count, seed: UInt8(count % 251)) + tail
                let account = "a\(count)-\(tail.count)-\(tail.first ?? 1)"
                secrets[account] = bytes
                try store.add(
                    .genericPassword(service: "s", account: account), data: SecretBytes(count: bytes.count) { $0.copyBytes(from: bytes) })
            }
        }
        let path = directory.file("items.htk")
        let key = ExportKey.passphrase(secret("export"))
        #expect(try StoreExport.write(from: store, to: path, key: key, cost: .interactive) == secrets.count)
        let read = try StoreExport.read(from: path, key: key)
        #expect(read.count == secrets.count)
        for item in read {
            let account = try #require(item.attributes.string(.account))
            #expect(item.data.withUnsafeBytes { Array($0) } == secrets[account], "\(account)")
        }
        let target = try ConformanceFixture(.memory).open()
        #expect(try StoreExport.add(read, to: target, update: false).added == secrets.count)
    }

    @Test func anExportOfVersionTwoIsStillRead() throws {
        // Written by the code that wrote every export before version 3: no padding.
        let directory = TemporaryDirectory()
        let fixture = try ConformanceFixture(.memory)
        let store = try fixture.open(now: { Self.when })
        let secrets = [Self.secretBytes(40), Self.secretBytes(47, seed: 9) + [0x80], []]
        for (index, bytes) in secrets.enumerated() {
            try store.add(
                .genericPassword(service: "s", account: "a\(index)"), data: SecretBytes(count: bytes.count) { $0.copyBytes(from: bytes) })
        }
        let path = directory.file("v2.htk")
        let key = ExportKey.passphrase(secret("export"))
        #expect(try StoreExport.write(from: store, to: path, key: key, cost: .interactive, version: 2) == 3)
        #expect(FileBytes.read(path)[8] == 2)
        let read = try StoreExport.read(from: path, key: key)
        let byAccount = Dictionary(uniqueKeysWithValues: try read.map { (try #require($0.attributes.string(.account)), $0) })
        for (index, bytes) in secrets.enumerated() {
            #expect(byAccount["a\(index)"]?.data.withUnsafeBytes { Array($0) } == bytes)
            #expect(byAccount["a\(index)"]?.attributes[.creationDate]?.dateValue == Self.when)
        }
        let target = try ConformanceFixture(.memory).open()
        #expect(try StoreExport.add(read, to: target, update: false).added == 3)
        #expect(try target.item(.genericPassword(service: "s", account: "a1")).data?.withUnsafeBytes { Array($0) } == secrets[1])
    }
}
