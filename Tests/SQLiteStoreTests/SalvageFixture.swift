import Data
import Domain
import Foundation
import SQLiteStore
import StoreCore
import TestSupport

/// A store of `count` generic passwords with known values, the helpers to damage its file, and salvage
/// run over it with every recovered item checked against what was written.
struct SalvageFixture {
    var fixture = StoreFixture()
    let count: Int

    /// The service, account, label and secret of item `index`.
    static func values(_ index: Int) -> (service: String, account: String, label: String, secret: String) {
        ("service-\(index % 7)", "account-\(index)", "label \(index)", "SALVAGE-SECRET-\(index)-\(index * 7919 % 1000)")
    }

    /// Writes the items in one transaction and moves them into the database file.
    func create() throws {
        let store = try fixture.open()
        try store.transaction { transaction in
            for index in 0..<count {
                let item = Self.values(index)
                try transaction.add(
                    .genericPassword(service: item.service, account: item.account, label: item.label),
                    data: secret(item.secret))
            }
        }
        try store.checkpoint()
    }

    /// Salvages the store file.
    func salvage() throws -> SalvageResult {
        try StoreSalvage.recover(from: try SQLiteSalvageSource(path: fixture.path), keySource: .keyFile(path: fixture.keyFile))
    }

    /// How many recovered items are not exactly an item that was written (must be 0), and how many
    /// distinct written items came back.
    func audit(_ result: SalvageResult) -> Audit {
        var wrong = 0
        var seen: Set<Int> = []
        for item in result.items {
            let attributes = item.attributes
            guard let account = attributes.string(.account), account.hasPrefix("account-"),
                let index = Int(account.dropFirst("account-".count)), index >= 0, index < count
            else {
                wrong += 1
                continue
            }
            let expected = Self.values(index)
            guard attributes.itemClass == .genericPassword, attributes.string(.service) == expected.service,
                attributes.string(.label) == expected.label, attributes.accessGroup == "default",
                item.data.text == expected.secret, seen.insert(index).inserted
            else {
                wrong += 1
                continue
            }
        }
        return Audit(wrong: wrong, right: seen.count)
    }

    /// Recovered items that are not what was written, and written items that came back.
    struct Audit: Equatable {
        let wrong: Int
        let right: Int
    }

    /// Where `needle` first occurs in `haystack`.
    static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// The numbers of the database file's table-leaf pages that hold at least `cells` cells (page 1
    /// aside), found from their headers.
    func leafPages(minimumCells cells: Int) -> [Int] {
        let bytes = FileBytes.read(fixture.path)
        let size = Int(bytes[16]) << 8 | Int(bytes[17])
        return stride(from: size, to: bytes.count, by: size).compactMap { offset in
            guard bytes[offset] == 0x0D, Int(bytes[offset + 3]) << 8 | Int(bytes[offset + 4]) >= cells else { return nil }
            return offset / size + 1
        }
    }

    /// The page size of the database file.
    var pageSize: Int {
        let bytes = FileBytes.read(fixture.path)
        return Int(bytes[16]) << 8 | Int(bytes[17])
    }

    /// Applies `change` to the database file's bytes.
    func damage(_ change: (inout [UInt8]) -> Void) throws {
        var bytes = FileBytes.read(fixture.path)
        change(&bytes)
        try FileBytes.writePrivate(bytes, to: fixture.path)
    }

    /// The bytes of the store's files, to compare before and after a salvage.
    var files: [[UInt8]] { fixture.allFileBytes.map(\.bytes) }
}
