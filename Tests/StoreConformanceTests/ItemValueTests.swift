import Data
import Domain
import TestSupport
import Testing

/// The conveniences over raw bytes: strict UTF-8 strings, Codable values and four-way lookups.
@Suite struct ItemValueTests {
    private struct Session: Codable, Equatable {
        var accessToken: String
        var expiresIn: Int
        var scopes: [String]
    }

    @Test(arguments: StoreAdapter.all)
    func findStringRefusesInvalidUTF8InsteadOfRepairingIt(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        let query = ItemAttributes.genericPassword(service: "bin", account: "a")
        try store.add(query, data: SecretBytes([0x66, 0x6F, 0xFF, 0x6F]))
        let error = #expect(throws: SecureStoreError.self) { try store.findString(query) }
        #expect(error?.isInvalidData == true)
        // The bytes themselves are intact.
        let data = try #require(try store.find(query).first?.data)
        #expect(data == SecretBytes([0x66, 0x6F, 0xFF, 0x6F]))

        for invalid: [UInt8] in [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE2, 0x82]] {
            try store.update(query, data: SecretBytes(invalid))
            #expect(throws: SecureStoreError.invalidData("the secret is not valid UTF-8")) {
                try store.findString(query)
            }
        }
        try store.addOrUpdate(query, string: "ok \u{1F511}")
        #expect(try store.findString(query) == "ok \u{1F511}")
    }

    @Test(arguments: StoreAdapter.all)
    func secretsOfEveryLengthAroundThePaddingBlockRoundTrip(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        for length in [0, 1, 62, 63, 64, 65, 127, 128, 129, 1000, 70_000] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            try store.add(.genericPassword(service: "len", account: "\(length)"), data: SecretBytes(bytes))
            let read = try #require(try store.find(.genericPassword(service: "len", account: "\(length)")).first?.data)
            #expect(read.count == length)
            #expect(read == SecretBytes(bytes))
        }
        // An all-zero secret and one ending in the padding marker byte survive unpadding.
        for (account, bytes): (String, [UInt8]) in [("zeros", Array(repeating: 0, count: 64)), ("marker", [1, 0x80]),
            ("marker-zero", [0x80, 0]),]
        {
            try store.add(.genericPassword(service: "pad", account: account), data: SecretBytes(bytes))
            let read = try store.find(.genericPassword(service: "pad", account: account)).first?.data
            #expect(read == SecretBytes(bytes))
        }
    }

    @Test(arguments: StoreAdapter.all)
    func codableValuesRoundTrip(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        let query = ItemAttributes.genericPassword(service: "oauth", account: "alice")
        let session = Session(accessToken: "at-1", expiresIn: 3600, scopes: ["read", "write"])
        #expect(try store.addOrUpdate(query, value: session) == .added)
        #expect(try store.findValue(Session.self, query) == session)

        var renewed = session
        renewed.accessToken = "at-2"
        #expect(try store.addOrUpdate(query, value: renewed) == .updated)
        #expect(try store.findValue(Session.self, query) == renewed)

        let error = #expect(throws: SecureStoreError.self) { try store.findValue([Int].self, query) }
        #expect(error?.isInvalidData == true)
        #expect(throws: SecureStoreError.itemNotFound) {
            try store.findValue(Session.self, .genericPassword(service: "none"))
        }
    }

    @Test(arguments: StoreAdapter.all)
    func lookupKeepsFoundNotFoundLockedAndDamagedApart(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        let query = ItemAttributes.genericPassword(service: "s", account: "a")
        guard case .notFound = store.lookup(query) else {
            Issue.record("an empty store must say not found")
            return
        }
        try store.add(query, data: secret("v"))
        guard case .found(let item) = store.lookup(query) else {
            Issue.record("the item must be found")
            return
        }
        #expect(item.text == "v")
        store.lock()
        guard case .locked = store.lookup(query) else {
            Issue.record("a locked store must say locked, not not-found")
            return
        }
    }
}
