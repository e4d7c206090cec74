import Data
import Domain
import Foundation
import TestSupport
import Testing

/// Which attributes a class takes, which only the store may set, and how the dates move.
@Suite struct AttributeRuleTests {
    @Test(arguments: [
        (ItemClass.genericPassword, AttributeName.server),
        (.genericPassword, .port),
        (.internetPassword, .service),
        (.certificate, .keyType),
        (.identity, .account),
        (.key, .issuer),
        (.key, .subject),
    ])
    func theDynamicInitializerRefusesAnAttributeTheClassDoesNotAllow(itemClass: ItemClass, name: AttributeName) {
        let value: AttributeValue =
            switch name.valueKind {
            case .string: .string("x")
            case .bytes: .bytes([1])
            case .integer: .integer(1)
            case .date: .date(Date())
            }
        #expect(throws: SecureStoreError.attributeNotAllowed(name, itemClass)) {
            try ItemAttributes(itemClass, [name: value])
        }
        #expect(throws: SecureStoreError.attributeNotAllowed(name, itemClass)) {
            try ItemAttributes(itemClass, [:]).setting(name, to: value)
        }
    }

    @Test(arguments: StoreAdapter.all)
    func theDynamicInitializerAcceptsEveryAllowedAttributeAndChecksKinds(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        for itemClass in ItemClass.allCases {
            for name in itemClass.allowedAttributes {
                let wrong: AttributeValue = name.valueKind == .string ? .integer(1) : .string("x")
                #expect(throws: SecureStoreError.invalidAttributeValue(name, expected: name.valueKind)) {
                    try ItemAttributes(itemClass, [name: wrong])
                }
            }
        }
        let attributes = try ItemAttributes(.internetPassword, [.server: .string("h"), .port: .integer(22)])
        let store = try fixture.open()
        try store.add(attributes, data: secret("dynamic"))
        #expect(try store.findString(.internetPassword(server: "h", port: 22)) == "dynamic")
    }

    @Test(arguments: StoreAdapter.all, [AttributeName.creationDate, .modificationDate])
    func theDatesAreReadOnly(adapter: StoreAdapter, name: AttributeName) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        let dated = try ItemAttributes(.genericPassword, [.service: .string("s"), name: .date(Date())])
        #expect(throws: SecureStoreError.readOnlyAttribute(name)) { try store.add(dated, data: secret("x")) }
        #expect(throws: SecureStoreError.readOnlyAttribute(name)) { try store.addOrUpdate(dated, data: secret("x")) }
        try store.add(.genericPassword(service: "s"), data: secret("x"))
        #expect(throws: SecureStoreError.readOnlyAttribute(name)) {
            try store.update(.genericPassword(service: "s"), attributes: dated, data: nil)
        }
        #expect(try store.find(.genericPassword(), limit: .all).count == 1)
    }

    @Test(arguments: StoreAdapter.all)
    func theModificationDateAdvancesOnUpdateAndTheCreationDateStays(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let clock = TestClock(Date(timeIntervalSince1970: 1_700_000_000.25))
        let store = try fixture.open(now: clock.now)
        let query = ItemAttributes.genericPassword(service: "s", account: "a")
        try store.add(query, data: secret("x"))
        let created = try #require(try store.find(query, limit: .one, returning: .attributes).first?.attributes)
        #expect(created[.creationDate]?.dateValue == clock.date)
        #expect(created[.modificationDate]?.dateValue == clock.date)

        clock.advance(by: 90.5)
        try store.update(query, attributes: .genericPassword(label: "L"), data: nil)
        let labelled = try #require(try store.find(query, limit: .one, returning: .attributes).first?.attributes)
        #expect(labelled[.creationDate] == created[.creationDate])
        #expect(labelled[.modificationDate]?.dateValue == clock.date)

        clock.advance(by: 1)
        try store.update(query, data: secret("y"))
        let rekeyed = try #require(try store.find(query, limit: .one, returning: .attributes).first?.attributes)
        #expect(rekeyed[.modificationDate]?.dateValue == clock.date)
        #expect(rekeyed[.creationDate] == created[.creationDate])

        // Dates keep milliseconds: a date query matches exactly what was stored.
        #expect(try store.findString(try query.setting(.creationDate, to: created[.creationDate])) == "y")
    }

    @Test(arguments: StoreAdapter.all)
    func everyAttributeKindRoundTrips(adapter: StoreAdapter) throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open()
        let attributes = ItemAttributes.internetPassword(
            server: "h\u{0}st \u{1F511}", account: "", protocol: .ssh, port: -1, path: "/p", securityDomain: "d",
            authenticationType: .ntlm, label: "l", comment: "c", description: "d", generic: [0, 255, 0])
        try store.add(attributes, data: secret("v"))
        let stored = try #require(try store.item(.internetPassword()).attributes)
        for (name, value) in attributes.values { #expect(stored[name] == value, "\(name.key)") }
        #expect(stored.accessGroup == "default")
    }
}
