import Data
import Domain
import Foundation
import RawSQLite
import TestSupport
import Testing

/// A store file is read as written by anyone who could write it: a trigger or a view the store did not
/// make, or one of the store's own triggers with another body under its name, would run on the store's
/// connection, inside its transactions; a table or an index defined otherwise would change what its
/// statements do. So the store opens a file only when every object of its schema is, to the byte of
/// its SQL, one that a build of Hardtack made, and refuses any other (as damage) rather than let it
/// run; salvage, which reads the pages itself, still gets the items out.
@Suite struct UntrustedSchemaTests {
    let fixture = StoreFixture()
    private let mail = ItemAttributes.genericPassword(service: "mail", account: "alice")

    /// A store with one item, closed, then `sql` run on its file by a raw connection.
    private func plant(_ sql: [String]) throws {
        do {
            let store = try fixture.open()
            try store.add(mail, data: secret("ONE-SECRET"))
            try store.checkpoint()
        }
        let raw = try RawDatabase(path: fixture.path)
        for statement in sql { _ = try raw.query(statement) }
    }

    /// Opens the store, which must be refused as damage without changing the file, with a message that
    /// holds `fragment` and no secret; returns the message.
    @discardableResult
    private func expectRefused(containing fragment: String, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> String
    {
        let before = FileBytes.read(fixture.path)
        var message = ""
        do {
            _ = try fixture.open()
            Issue.record("a store whose file holds a schema the store did not make opened", sourceLocation: sourceLocation)
        } catch {
            message = error.description
            #expect(error.isIntegrityFailure, "\(error)", sourceLocation: sourceLocation)
            #expect(message.contains(fragment), "\(error)", sourceLocation: sourceLocation)
            #expect(!message.contains("ONE-SECRET") && !message.contains("INSERT"), "\(error)", sourceLocation: sourceLocation)
        }
        #expect(FileBytes.read(fixture.path) == before, "the refused open changed nothing", sourceLocation: sourceLocation)
        return message
    }

    /// The store's own trigger as it makes it, with `body` in place of its statement.
    private static func ownTrigger(_ name: String, event: String, body: String) -> [String] {
        ["DROP TRIGGER \(name)", "CREATE TRIGGER \(name) AFTER \(event) ON meta BEGIN\n    \(body)\nEND"]
    }

    @Test(arguments: [
        ("CREATE TRIGGER planted_on_update AFTER UPDATE ON items BEGIN UPDATE items SET data = x'00'; END", "trigger", "planted_on_update"),
        ("CREATE TRIGGER meta_copy_on_insert_2 AFTER INSERT ON items BEGIN UPDATE meta_copy SET header = NEW.data; END", "trigger",
         "meta_copy_on_insert_2"),
        ("CREATE VIEW planted_view AS SELECT data FROM items", "view", "planted_view"),
        ("CREATE TABLE planted (v BLOB)", "table", "planted"),
        ("CREATE INDEX planted_index ON items (grp, class)", "index", "planted_index"),
    ])
    func anObjectPlantedInTheFileIsDamageAndNeverRuns(sql: String, type: String, name: String) throws {
        try plant([sql])
        try expectRefused(containing: "holds a \(type) the store did not make (\(name)):")
    }

    @Test func theStoresOwnTriggerWithABodyThatCopiesTheItemsElsewhereIsRefused() throws {
        // Same name, same table, same event: only the body differs, and it copies every item's
        // ciphertext into the header's copy on each change of the header.
        try plant(
            Self.ownTrigger(
                "meta_copy_on_update", event: "UPDATE",
                body: "INSERT OR REPLACE INTO meta_copy (id, header, checksum, wrapped_key) "
                    + "SELECT 1, NEW.header, NEW.checksum, (SELECT group_concat(data) FROM items);"))
        let message = try expectRefused(containing: "did not make (meta_copy_on_update")
        #expect(message.contains("defined otherwise"), "\(message)")
    }

    @Test func theStoresOwnTriggerWithABodyThatDoesNothingIsRefused() throws {
        // The header's copy would silently stop following the header.
        try plant(Self.ownTrigger("meta_copy_on_insert", event: "INSERT", body: "SELECT 1;"))
        try expectRefused(containing: "did not make (meta_copy_on_insert")
    }

    @Test func theStoresOwnTriggerRewrittenInPlaceIsRefused() throws {
        // Through the schema table itself, name and table kept: the body's text is all that changes.
        try plant([
            "PRAGMA writable_schema = ON",
            "UPDATE sqlite_master SET sql = replace(sql, 'NEW.wrapped_key)', 'x''00'')') WHERE name = 'meta_copy_on_update'",
        ])
        try expectRefused(containing: "did not make (meta_copy_on_update")
    }

    @Test func oneSpaceMoreInTheStoresOwnTriggerIsRefused() throws {
        // Byte for byte: SQLite keeps a trigger's text as written, and so compares the store.
        try plant([
            "PRAGMA writable_schema = ON",
            "UPDATE sqlite_master SET sql = replace(sql, 'BEGIN', 'BEGIN ') WHERE name = 'meta_copy_on_insert'",
        ])
        try expectRefused(containing: "did not make (meta_copy_on_insert")
    }

    @Test func theStoresOwnTriggerNameOnAnotherTableIsForeignToo() throws {
        try plant([
            "DROP TRIGGER meta_copy_on_update",
            "CREATE TRIGGER meta_copy_on_update AFTER UPDATE ON items BEGIN UPDATE meta_copy SET header = NEW.data; END",
        ])
        try expectRefused(containing: "did not make (meta_copy_on_update")
    }

    @Test func aTableDefinedOtherwiseIsRefused() throws {
        // The items table with a column that may now be NULL.
        try plant([
            "PRAGMA writable_schema = ON",
            "UPDATE sqlite_master SET sql = replace(sql, 'data BLOB NOT NULL', 'data BLOB') WHERE name = 'items'",
        ])
        try expectRefused(containing: "did not make (items")
    }

    @Test func anIndexOfTheFirstBuildsOnTodaysTableIsRefused() throws {
        // Each object made by some build, but not together.
        try plant([FirstBuildSchema.primaryIndex])
        try expectRefused(containing: "did not make (items_prim")
    }

    @Test func oneOfTheStoresTriggersMissingIsRefused() throws {
        try plant(["DROP TRIGGER meta_copy_on_update"])
        try expectRefused(containing: "lacks the trigger meta_copy_on_update")
    }

    @Test func anUntouchedStoreOpens() throws {
        try plant([])
        #expect(try fixture.open().findString(mail) == "ONE-SECRET")
    }

    @Test(arguments: [(true, true), (false, true), (true, false), (false, false)])
    func aStoreOfTheFirstBuildsOpensAndIsUpgraded(headerCopy: Bool, rowsDigest: Bool) throws {
        // The first builds wrote format 1, the only format whose stores can lack the rows digest.
        let fixture = StoreFixture(format: 1)
        do {
            let store = try fixture.open()
            try store.add(mail, data: secret("ONE-SECRET"))
            try store.checkpoint()
        }
        try FirstBuildSchema.apply(to: try fixture.raw(), headerCopy: headerCopy, rowsDigest: rowsDigest)
        do {
            let store = try fixture.open()
            #expect(try store.findString(mail) == "ONE-SECRET")
            try store.add(.genericPassword(service: "mail", account: "bob"), data: secret("TWO"))
            #expect(try store.verify().isSound)
        }
        // Upgraded in place (the header's copy, the rows digest), and still opens.
        let names = try fixture.raw().query("SELECT name FROM sqlite_master ORDER BY name").compactMap { row -> String? in
            if case .text(let name) = row.first { name } else { nil }
        }
        #expect(names == ["items", "items_prim", "meta", "meta_copy", "meta_copy_on_insert", "meta_copy_on_update",
                          "rows_digest", "sqlite_autoindex_items_1", "sqlite_sequence"])
        #expect(try fixture.open().findString(.genericPassword(service: "mail", account: "bob")) == "TWO")
    }
}
