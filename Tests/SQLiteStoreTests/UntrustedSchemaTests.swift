import Data
import Domain
import Foundation
import RawSQLite
import TestSupport
import Testing

/// A store file is read as written by anyone who could write it: a trigger or a view the store did not
/// make would run on the store's connection, inside its transactions, so the store refuses to open
/// such a file (as damage) rather than let it run; salvage, which reads the pages itself, still gets
/// the items out.
@Suite struct UntrustedSchemaTests {
    let fixture = StoreFixture()
    private let mail = ItemAttributes.genericPassword(service: "mail", account: "alice")

    private func plant(_ sql: String) throws {
        let store = try fixture.open()
        try store.add(mail, data: secret("ONE"))
        try store.checkpoint()
        let raw = try RawDatabase(path: fixture.path)
        _ = try raw.query("CREATE TABLE IF NOT EXISTS planted (v BLOB)")
        _ = try raw.query(sql)
    }

    @Test(arguments: [
        "CREATE TRIGGER planted_on_update AFTER UPDATE ON items BEGIN UPDATE items SET data = x'00'; END",
        "CREATE TRIGGER meta_copy_on_insert_2 AFTER INSERT ON items BEGIN INSERT INTO planted VALUES (NEW.data); END",
        "CREATE VIEW planted_view AS SELECT data FROM items",
    ])
    func aTriggerOrViewPlantedInTheFileIsDamageAndNeverRuns(sql: String) throws {
        try plant(sql)
        let before = FileBytes.read(fixture.path)
        do {
            _ = try fixture.open()
            Issue.record("a store whose file holds foreign code opened")
        } catch {
            #expect(error.isIntegrityFailure, "\(error)")
            #expect(error.description.contains("did not make"), "\(error)")
        }
        #expect(FileBytes.read(fixture.path) == before, "the refused open changed nothing")
    }

    @Test func theStoresOwnTriggerNameOnAnotherTableIsForeignToo() throws {
        // The copy's trigger name on the items table: the name alone does not make it the store's.
        try plant("DROP TRIGGER meta_copy_on_update")
        let raw = try RawDatabase(path: fixture.path)
        _ = try raw.query("CREATE TRIGGER meta_copy_on_update AFTER UPDATE ON items BEGIN INSERT INTO planted VALUES (1); END")
        #expect(throws: SecureStoreError.self) { _ = try fixture.open() }
    }
}
