import Data
import Domain
import Foundation
import TestSupport
import Testing

/// A damaged schema (a column renamed by a flipped byte, an unknown schema format) is an integrity
/// failure, like any other damage, not an opaque database error: found by the torture bench, where
/// such flips surfaced as "SQLite code 1".
@Suite struct SchemaDamageTests {
    let fixture = StoreFixture()

    private func createStore() throws {
        let store = try fixture.open()
        try store.add(.genericPassword(service: "svc", account: "a"), data: secret("S"))
        try store.checkpoint()
    }

    private func openError() -> SecureStoreError? {
        do {
            let store = try fixture.open()
            _ = try store.find(.genericPassword(), limit: .all, returning: .all)
            return nil
        } catch {
            return error
        }
    }

    @Test func aRenamedColumnIsDamage() throws {
        try createStore()
        do {
            let raw = try fixture.raw()
            try raw.query("PRAGMA writable_schema = ON")
            try raw.query("UPDATE sqlite_master SET sql = replace(sql, 'attrs BLOB', 'attrz BLOB') WHERE name = 'items'")
        }
        let error = try #require(openError())
        #expect(error.isIntegrityFailure, "\(error)")
    }

    @Test func anUnknownSchemaFormatIsDamage() throws {
        try createStore()
        var bytes = FileBytes.read(fixture.path)
        bytes[47] = 9  // the schema format number: SQLite knows 1 to 4
        try FileBytes.writePrivate(bytes, to: fixture.path)
        let error = try #require(openError())
        #expect(error.isIntegrityFailure, "\(error)")
    }
}
