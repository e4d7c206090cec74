import Data
import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore
import TestSupport
import Testing

/// Code on the store's tables runs inside the store's transactions, so a store opens only when that
/// code is the store's own, to the byte: someone who can change the schema on the server (its owner, a
/// superuser) and replaces the body of the store's trigger function under its name, adds a trigger, a
/// rule or a policy of their own, or switches a trigger of the store's off, finds the store refused as
/// damage, the planted code never run by it.
@Suite struct PostgreSQLForeignCodeTests {
    private let mail = ItemAttributes.genericPassword(service: "mail", account: "alice")

    /// A store with one item, every handle closed, then `sql` run on the server with `$S` for its schema.
    private func plant(_ test: TestStore, _ sql: String) throws {
        do {
            let store = try test.open()
            try store.add(mail, data: secret("ONE-SECRET"))
        }
        if !sql.isEmpty { try test.sql().execute(sql.replacingOccurrences(of: "$S", with: test.schema)) }
    }

    /// Opening `test`'s store is refused as damage, with a message holding `fragment` and no secret
    /// nor any of the planted SQL.
    private func expectRefused(_ test: TestStore, containing fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try test.open()
            Issue.record("a store with code it did not make on its tables opened", sourceLocation: sourceLocation)
        } catch let error as SecureStoreError {
            #expect(error.isIntegrityFailure, "\(error)", sourceLocation: sourceLocation)
            #expect(error.description.contains(fragment), "\(error)", sourceLocation: sourceLocation)
            #expect(!error.description.contains("ONE-SECRET") && !error.description.contains("INSERT"), "\(error)",
                    sourceLocation: sourceLocation)
        } catch {
            Issue.record("not the store's error: \(error)", sourceLocation: sourceLocation)
        }
    }

    /// How many rows the table `public.<name>` holds, or `nil` when there is none.
    private func rows(_ test: TestStore, _ name: String) throws -> Int64? {
        let exists = try test.sql().query("SELECT to_regclass('public.' || $1) IS NOT NULL", [.text(name)]).bool(0, 0)
        guard exists else { return nil }
        return try test.sql().query("SELECT count(*) FROM public.\(name)").int64(0, 0)
    }

    @Test func theStoresOwnFunctionWithABodyThatCopiesEveryRowIsRefusedAndNeverRuns() throws {
        let test = TestStore()
        let copies = "copies_" + test.schema
        // Same function, same triggers: only the body differs. It still counts changes, and also
        // copies every row of items into a table of the attacker's.
        try plant(
            test,
            """
            CREATE TABLE public.\(copies) (id bigint, data bytea);
            CREATE OR REPLACE FUNCTION $S.count_item_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'TRUNCATE' THEN
                    UPDATE $S.group_digests SET version = version + 1;
                    RETURN NULL;
                END IF;
                INSERT INTO public.\(copies) SELECT id, data FROM $S.items;
                IF TG_OP <> 'INSERT' THEN
                    UPDATE $S.group_digests SET version = version + 1 WHERE grp = OLD.grp;
                END IF;
                IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.grp IS DISTINCT FROM OLD.grp) THEN
                    UPDATE $S.group_digests SET version = version + 1 WHERE grp = NEW.grp;
                END IF;
                RETURN NULL;
            END $$;
            """)
        defer { try? test.sql().execute("DROP TABLE IF EXISTS public.\(copies)") }
        expectRefused(test, containing: "function the store did not make (count_item_change, under the name of one of the store's own")
        #expect(try rows(test, copies) == 0, "no write of the store's ran the planted body")
    }

    @Test func theStoresOwnFunctionWithABodyThatDoesNothingIsRefused() throws {
        // Other instances would no longer see this one's changes, and serve rows from their caches.
        let test = TestStore()
        try plant(
            test,
            "CREATE OR REPLACE FUNCTION $S.count_item_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$")
        expectRefused(test, containing: "(count_item_change, under the name")
    }

    @Test func theStoresOwnFunctionMadeSecurityDefinerIsRefused() throws {
        // The body unchanged, but run with its owner's rights.
        let test = TestStore()
        try plant(test, "ALTER FUNCTION $S.count_item_change() SECURITY DEFINER")
        expectRefused(test, containing: "(count_item_change")
    }

    @Test func theStoresOwnTriggerRedefinedUnderItsNameIsRefused() throws {
        // Fired before each row instead of after: the same function, now able to change the rows.
        let test = TestStore()
        try plant(
            test,
            """
            DROP TRIGGER items_changed ON $S.items;
            CREATE TRIGGER items_changed BEFORE INSERT OR UPDATE OR DELETE ON $S.items
                FOR EACH ROW EXECUTE FUNCTION $S.count_item_change();
            """)
        expectRefused(test, containing: "trigger the store did not make (items_changed, under the name")
    }

    @Test func theStoresOwnTriggerCallingAFunctionElsewhereIsRefused() throws {
        let test = TestStore()
        let function = "f_" + test.schema
        try plant(
            test,
            """
            CREATE FUNCTION public.\(function)() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
            DROP TRIGGER items_truncated ON $S.items;
            CREATE TRIGGER items_truncated AFTER TRUNCATE ON $S.items
                FOR EACH STATEMENT EXECUTE FUNCTION public.\(function)();
            """)
        defer { try? test.sql().execute("DROP TABLE IF EXISTS public.\(function); DROP FUNCTION IF EXISTS public.\(function)() CASCADE") }
        expectRefused(test, containing: "(items_truncated, under the name")
    }

    @Test func theStoresOwnTriggerSwitchedOffIsRefused() throws {
        let test = TestStore()
        try plant(test, "ALTER TABLE $S.items DISABLE TRIGGER items_changed")
        expectRefused(test, containing: "(items_changed, under the name")
    }

    @Test(arguments: [
        ("CREATE TRIGGER planted AFTER INSERT ON $S.items FOR EACH ROW EXECUTE FUNCTION $S.count_item_change()", "trigger the store did not make (planted)"),
        ("CREATE TRIGGER planted AFTER UPDATE ON $S.meta FOR EACH ROW EXECUTE FUNCTION $S.count_item_change()", "trigger the store did not make (planted)"),
        ("CREATE FUNCTION $S.planted() RETURNS integer LANGUAGE sql AS 'SELECT 1'", "function the store did not make (planted)"),
        ("CREATE RULE planted AS ON INSERT TO $S.meta DO ALSO NOTIFY planted", "rule the store did not make (planted)"),
        ("CREATE POLICY planted ON $S.items USING (true)", "row security policy the store did not make (planted)"),
    ])
    func codePlantedOnTheStoresTablesIsRefused(sql: String, fragment: String) throws {
        let test = TestStore()
        try plant(test, sql)
        expectRefused(test, containing: fragment)
    }

    @Test func aMissingTriggerIsRefused() throws {
        let test = TestStore()
        try plant(test, "DROP TRIGGER items_truncated ON $S.items")
        expectRefused(test, containing: "lack the trigger items_truncated")
    }

    @Test func anUntouchedStoreOpensWhateverTheSearchPath() throws {
        let test = TestStore()
        try plant(test, "")
        #expect(try test.open().findString(mail) == "ONE-SECRET")
        // With the store's schema on the role's search path, the server names its function unqualified.
        let role = try test.sql().query("SELECT current_user::text").string(0, 0)
        try test.sql().execute("ALTER ROLE \(role) SET search_path = \(test.schema), public")
        defer { try? test.sql().execute("ALTER ROLE \(role) RESET search_path") }
        #expect(try test.open().findString(mail) == "ONE-SECRET")
    }

    @Test func aVersion1StoreStillOpensAndIsUpgraded() throws {
        let test = TestStore()
        do {
            let store = try test.open(format: 2)
            try store.add(mail, data: secret("ONE-SECRET"))
        }
        try Version1Store.downgrade(test)
        #expect(try test.open().findString(mail) == "ONE-SECRET")
        #expect(try test.sql().query("SELECT schema_version FROM \(test.schema).meta").int32(0, 0) == 2)
        #expect(try test.open().findString(mail) == "ONE-SECRET")
    }

    @Test func aVersion1StoreWithItsFunctionReplacedIsRefused() throws {
        let test = TestStore()
        do {
            let store = try test.open(format: 2)
            try store.add(mail, data: secret("ONE-SECRET"))
        }
        try Version1Store.downgrade(test)
        try test.sql().execute(
            "CREATE OR REPLACE FUNCTION \(test.schema).count_item_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$")
        expectRefused(test, containing: "(count_item_change, under the name")
        #expect(try test.sql().query("SELECT schema_version FROM \(test.schema).meta").int32(0, 0) == 1, "not upgraded")
    }
}
