import Data
import Domain
import Foundation
import StoreCore
import TestSupport
import Testing

/// A store moved SQLite → PostgreSQL → SQLite through two exports keeps every item whole: every class,
/// every attribute it allows (description, comment and label included), a non-default access group,
/// the creation and modification dates, and the data byte for byte.
struct ExportRoundTripTests {
    /// When the source store's items were made: long before the test runs, so that a date the import
    /// set anew could not equal it.
    static let past = Date(timeIntervalSince1970: 1_600_000_000.123)

    /// One item of every class with every attribute its class allows, in access group `group`.
    static func everyAttribute(group: String) throws -> [(ItemAttributes, [UInt8])] {
        try ExportTests.samples.enumerated().map { index, sample in
            let itemClass = sample.0.itemClass
            var values = sample.0.values
            for name in itemClass.allowedAttributes where values[name] == nil && !name.isReadOnly {
                switch name.valueKind {
                case .string: values[name] = .string("\(name)-\(index)")
                case .bytes: values[name] = .bytes([UInt8(index), 0, 255])
                case .integer: values[name] = .integer(Int64(1000 + index))
                case .date: break
                }
            }
            values[.accessGroup] = .string(group)
            // Binary data with a zero byte and every high bit.
            return (try ItemAttributes(itemClass, values), [0, 1, 128, 255, UInt8(index)] + Array(sample.1.utf8))
        }
    }

    /// Every attribute (dates included) and the data of `query`'s item in `store`.
    private static func snapshot(_ store: any StoreHandle, _ query: ItemAttributes) throws
        -> ([AttributeName: AttributeValue], [UInt8])
    {
        let item = try store.item(query)
        let data = try #require(item.data).withUnsafeBytes { Array($0) }
        return (try #require(item.attributes).values, data)
    }

    @Test func sqliteToPostgreSQLToSQLiteKeepsEveryClassAttributeDateAndByte() throws {
        let groups = ["default", "team"]
        let items = try Self.everyAttribute(group: "team")
        let source = try ConformanceFixture(.sqlite)
        let middle = try ConformanceFixture(.postgreSQL)
        let target = try ConformanceFixture(.sqlite)
        let from = try source.open(groups: groups, now: { Self.past })
        for (attributes, data) in items {
            try from.add(attributes, data: SecretBytes(count: data.count) { $0.copyBytes(from: data) })
        }
        // Every class is present, each with every attribute it allows.
        #expect(Set(items.map(\.0.itemClass)) == Set(ItemClass.allCases))
        for (attributes, _) in items {
            let stored = try Self.snapshot(from, attributes).0
            #expect(Set(stored.keys) == attributes.itemClass.allowedAttributes, "\(attributes.itemClass)")
        }
        let key = ExportKey.passphrase(secret("move it"))
        let first = source.directory.file("first.htk")
        #expect(try StoreExport.write(from: from, to: first, key: key, cost: .interactive) == items.count)
        let pg = try middle.open(groups: groups)
        #expect(try StoreExport.add(StoreExport.read(from: first, key: key), to: pg, update: false).added == items.count)
        let second = middle.directory.file("second.htk")
        #expect(try StoreExport.write(from: pg, to: second, key: key, cost: .interactive) == items.count)
        let back = try target.open(groups: groups)
        #expect(try StoreExport.add(StoreExport.read(from: second, key: key), to: back, update: false).added == items.count)
        for (attributes, data) in items {
            let original = try Self.snapshot(from, attributes)
            #expect(original.0[.creationDate] == .date(Self.past))
            #expect(original.1 == data)
            for (name, store) in [("postgresql", pg), ("sqlite again", back)] {
                let copy = try Self.snapshot(store, attributes)
                #expect(copy.0 == original.0, "\(attributes.itemClass) in \(name)")
                #expect(copy.1 == original.1, "\(attributes.itemClass)'s data in \(name)")
            }
        }
        // Nothing in the default group: the items stayed in theirs.
        let defaultOnly = try target.open(groups: ["default"])
        for itemClass in ItemClass.allCases {
            #expect(throws: SecureStoreError.itemNotFound) {
                try defaultOnly.find(try ItemAttributes(itemClass, [:]), limit: .all, returning: [.attributes])
            }
        }
    }
}
