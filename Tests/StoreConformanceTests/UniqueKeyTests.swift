import Data
import Domain
import TestSupport
import Testing

/// Each class's unique key: changing any one of its attributes makes a distinct item, repeating all of
/// them is a duplicate, and attributes outside the key never make an item distinct.
@Suite struct UniqueKeyTests {
    /// Adds `base`, then each variant (each must be a new item), then `base` again with only
    /// non-key attributes changed (a duplicate); finally finds every item by its full key.
    private func check(
        _ adapter: StoreAdapter, base: ItemAttributes, variants: [AttributeName: AttributeValue], sameKey: ItemAttributes
    ) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        try store.add(base, data: secret("base"))
        #expect(Set(variants.keys) == Set(base.itemClass.uniqueKey).subtracting([.accessGroup]))
        for (name, value) in variants.sorted(by: { $0.key < $1.key }) {
            let variant = try base.setting(name, to: value)
            try store.add(variant, data: secret("variant \(name.key)"))
            #expect(throws: SecureStoreError.duplicateItem) { try store.add(variant, data: secret("again")) }
        }
        #expect(throws: SecureStoreError.duplicateItem) { try store.add(base, data: secret("again")) }
        #expect(throws: SecureStoreError.duplicateItem) { try store.add(sameKey, data: secret("again")) }

        #expect(try store.find(ItemAttributes(base.itemClass, [:]), limit: .all).count == variants.count + 1)
        #expect(try store.findString(base) == "base")
        for (name, value) in variants {
            #expect(try store.findString(try base.setting(name, to: value)) == "variant \(name.key)")
        }
    }

    @Test(arguments: StoreAdapter.all)
    func genericPasswordIsKeyedByServiceAndAccount(adapter: StoreAdapter) throws {
        try check(
            adapter, base: .genericPassword(service: "svc", account: "acct"),
            variants: [.service: .string("svc2"), .account: .string("acct2")],
            sameKey: .genericPassword(
                service: "svc", account: "acct", label: "L", comment: "C", description: "D", generic: [1]))
    }

    @Test(arguments: StoreAdapter.all)
    func internetPasswordIsKeyedByEightAttributes(adapter: StoreAdapter) throws {
        try check(
            adapter, base: .internetPassword(
                server: "example.com", account: "alice", protocol: .https, port: 443, path: "/login",
                securityDomain: "realm", authenticationType: .htmlForm),
            variants: [
                .server: .string("example.org"), .account: .string("bob"), .protocol: .string("http"),
                .port: .integer(8443), .path: .string("/other"), .securityDomain: .string("realm2"),
                .authenticationType: .string("httpbasic"),
            ],
            sameKey: .internetPassword(
                server: "example.com", account: "alice", protocol: .https, port: 443, path: "/login",
                securityDomain: "realm", authenticationType: .htmlForm, label: "L", comment: "C"))
    }

    @Test(arguments: StoreAdapter.all)
    func certificateIsKeyedByTypeIssuerAndSerialNumber(adapter: StoreAdapter) throws {
        try check(
            adapter, base: .certificate(certificateType: 3, issuer: [0x30, 1], serialNumber: [7], subject: [0x30, 9]),
            variants: [.certificateType: .integer(2), .issuer: .bytes([0x30, 2]), .serialNumber: .bytes([8])],
            sameKey: .certificate(certificateType: 3, issuer: [0x30, 1], serialNumber: [7], subject: [0x30, 10]))
    }

    @Test(arguments: StoreAdapter.all)
    func identityIsKeyedLikeACertificate(adapter: StoreAdapter) throws {
        try check(
            adapter, base: .identity(certificateType: 3, issuer: [0x30, 1], serialNumber: [7]),
            variants: [.certificateType: .integer(1), .issuer: .bytes([0x31]), .serialNumber: .bytes([7, 0])],
            sameKey: .identity(certificateType: 3, issuer: [0x30, 1], serialNumber: [7], subject: [1], label: "L"))
    }

    @Test(arguments: StoreAdapter.all)
    func keyIsKeyedByClassTypeLabelTagAndSize(adapter: StoreAdapter) throws {
        try check(
            adapter, base: .key(
                keyClass: .private, keyType: .ec, applicationLabel: [0xAA], applicationTag: Array("tag".utf8),
                keySizeInBits: 256),
            variants: [
                .keyClass: .string("public"), .keyType: .string("ed25519"), .applicationLabel: .bytes([0xAB]),
                .applicationTag: .bytes(Array("tag2".utf8)), .keySizeInBits: .integer(384),
            ],
            sameKey: .key(
                keyClass: .private, keyType: .ec, applicationLabel: [0xAA], applicationTag: Array("tag".utf8),
                keySizeInBits: 256, label: "L", generic: [9]))
    }

    @Test(arguments: StoreAdapter.all)
    func identicalKeysInDifferentClassesAreDifferentItems(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        try store.add(.certificate(certificateType: 1, issuer: [1], serialNumber: [2]), data: secret("cert"))
        try store.add(.identity(certificateType: 1, issuer: [1], serialNumber: [2]), data: secret("identity"))
        #expect(try store.findString(.certificate(issuer: [1])) == "cert")
        #expect(try store.findString(.identity(issuer: [1])) == "identity")
    }

    @Test(arguments: StoreAdapter.all)
    func valuesAreNotConfusedAcrossAttributeBoundaries(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        // "ab" + "c" and "a" + "bc" must not hash alike.
        let store = try fixture.open()
        try store.add(.genericPassword(service: "ab", account: "c"), data: secret("1"))
        try store.add(.genericPassword(service: "a", account: "bc"), data: secret("2"))
        #expect(try store.findString(.genericPassword(service: "ab", account: "c")) == "1")
        #expect(try store.findString(.genericPassword(service: "a", account: "bc")) == "2")
    }
}
