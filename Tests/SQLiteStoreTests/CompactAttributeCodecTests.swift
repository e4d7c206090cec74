import Data
import Domain
import Foundation
import StoreCore
import Testing

/// The compact attribute encoding of joint rows: every kind round-trips, malformed bytes are an
/// integrity failure (never a crash), and a date is rewritten in place.
@Suite struct CompactAttributeCodecTests {
    private let date = Date(timeIntervalSince1970: 1_790_000_000.123)

    private func encoded(_ attributes: ItemAttributes) -> [UInt8] {
        var bytes: [UInt8] = []
        CompactAttributeCodec.encode(attributes, into: &bytes)
        return bytes
    }

    private func decoded(_ bytes: [UInt8]) throws(SecureStoreError) -> ItemAttributes {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        defer { copy.deallocate() }
        copy.copyBytes(from: bytes)
        return try CompactAttributeCodec.decode(UnsafeRawBufferPointer(rebasing: copy[0..<bytes.count]))
    }

    @Test func everyKindRoundTrips() throws {
        let long = String(repeating: "é", count: 200)  // a length of two LEB128 bytes
        let key = try ItemAttributes(
            .key,
            [
                .applicationTag: .bytes([0, 1, 2, 255]), .label: .string(long), .keySizeInBits: .integer(-4096),
                .creationDate: .date(date), .accessGroup: .string(""),
            ])
        #expect(try decoded(encoded(key)) == key)
        let password = ItemAttributes.genericPassword(service: "com.example.api", account: "user0000001@example.com")
        var full = password
        full.setStoreManaged(.accessGroup, .string("default"))
        full.setStoreManaged(.creationDate, .date(date))
        full.setStoreManaged(.modificationDate, .date(date))
        let bytes = encoded(full)
        #expect(bytes.count == 70, "the benchmark's item: 70 bytes, against 92 in the index encoding")
        #expect(try decoded(bytes) == full)
    }

    @Test func malformedBytesAreAnIntegrityFailure() throws {
        let good = encoded(.genericPassword(service: "svc", account: "acct"))
        var cases: [[UInt8]] = [[], [0], [99], good + [200], good + [11], good + [11, 0x80, 0x80, 0x80, 0x80, 0x01]]
        cases.append(Array(good.dropLast()))  // a string cut short
        cases.append(good + good.dropFirst())  // every attribute twice
        cases.append([ItemClass.genericPassword.rawValue, AttributeName.creationDate.rawValue, 1, 2, 3])  // a short date
        cases.append([ItemClass.genericPassword.rawValue, AttributeName.server.rawValue, 0])  // not a password's
        cases.append([ItemClass.genericPassword.rawValue, AttributeName.service.rawValue, 2, 0xC3, 0x28])  // bad UTF-8
        for bytes in cases {
            let error = #expect(throws: SecureStoreError.self, "\(bytes)") { _ = try decoded(bytes) }
            #expect(error == .integrityFailure("an item's attributes are malformed"))
        }
    }

    @Test func aDateIsRewrittenInPlace() throws {
        var attributes = ItemAttributes.genericPassword(service: "svc", account: "acct")
        attributes.setStoreManaged(.creationDate, .date(date))
        attributes.setStoreManaged(.modificationDate, .date(date))
        var bytes = encoded(attributes)
        let later = date.addingTimeInterval(3600)
        #expect(CompactAttributeCodec.replaceDate(.modificationDate, with: later, in: &bytes))
        let changed = try decoded(bytes)
        #expect(changed[.modificationDate] == .date(Date(timeIntervalSince1970: 1_790_003_600.123)))
        #expect(changed[.creationDate] == attributes[.creationDate])
        // Absent, or not a date: unchanged.
        var plain = encoded(.genericPassword(service: "svc"))
        let before = plain
        #expect(!CompactAttributeCodec.replaceDate(.modificationDate, with: later, in: &plain))
        #expect(!CompactAttributeCodec.replaceDate(.service, with: later, in: &plain))
        #expect(plain == before)
    }
}
