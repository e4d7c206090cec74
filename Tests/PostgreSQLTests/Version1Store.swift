import Data
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore

/// A store in the version-1 shape (one `rows_digest` row for the whole store, a statement-level
/// trigger counting changes): made by this code, then given the tables version 1 had, with the rows,
/// their ciphertexts and the store-wide digest they must match.
enum Version1Store {
    /// Turns the test's store (made by this code, every handle on it closed) into a version-1 store:
    /// the tables and trigger of version 1 (as written by the code of that version), the rows as they
    /// are, and the one digest of them all (the sum of the per-group digests).
    static func downgrade(_ test: TestStore) throws {
        let schema = test.schema
        let sql = try test.sql()
        let digests = try sql.query("SELECT value FROM \(schema).group_digests")
        var whole = RowsDigest.empty
        for row in 0..<digests.rowCount {
            whole.merge(try require(RowsDigest(encoded: try digests.bytes(row, 0))))
        }
        let counter = try sql.query("SELECT coalesce(max(ver), 0) FROM \(schema).items").int64(0, 0)
        try sql.execute(
            """
            BEGIN;
            DROP TRIGGER items_changed ON \(schema).items;
            DROP TRIGGER items_truncated ON \(schema).items;
            DROP FUNCTION \(schema).count_item_change();
            DROP TABLE \(schema).group_digests;
            DROP TABLE \(schema).group_registry;
            DROP SEQUENCE \(schema).row_ids;
            CREATE TABLE IF NOT EXISTS \(schema).rows_digest (
                id integer PRIMARY KEY CHECK (id = 1),
                value bytea NOT NULL,
                version bigint NOT NULL DEFAULT 0
            );
            CREATE OR REPLACE FUNCTION \(schema).count_item_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE \(schema).rows_digest SET version = version + 1 WHERE id = 1;
                RETURN NULL;
            END $$;
            DROP TRIGGER IF EXISTS items_changed ON \(schema).items;
            CREATE TRIGGER items_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON \(schema).items
                FOR EACH STATEMENT EXECUTE FUNCTION \(schema).count_item_change();
            UPDATE \(schema).meta SET schema_version = 1;
            COMMIT
            """)
        _ = try sql.query(
            "INSERT INTO \(schema).rows_digest (id, value, version) VALUES (1, $1, $2)",
            [.bytes(whole.encoded), .int64(counter)])
    }
}

/// `value`, or a thrown error when it is `nil`.
private func require<Value>(_ value: Value?) throws -> Value {
    guard let value else { throw CocoaError(.coderValueNotFound) }
    return value
}
