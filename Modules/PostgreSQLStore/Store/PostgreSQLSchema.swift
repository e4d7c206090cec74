/// The store's tables in PostgreSQL, in a schema of their own, and the version of their shape.
///
/// Everything a table holds is a ciphertext, a blind index, a row id, a class code or a counter: no
/// service, account, label, server, user id or secret in any column, so `pg_dump` and the server's
/// files show none either.
enum PostgreSQLSchema {
    /// The schema that holds the store's tables unless the opener names another.
    static let defaultName = "hardtack"
    /// The version of the tables' shape this code writes; a store with a newer one is refused.
    static let currentVersion: Int32 = 2
    /// The key of the transaction-level advisory lock that serializes creating and upgrading the schema.
    static let creationLock: Int32 = 0x4861_7264  // "Hard"; the second key is the schema name's hash

    /// Whether `name` can be put in SQL as it is: lowercase letters, digits and underscores, starting
    /// with a letter, at most 48 characters.
    static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first), name.utf8.count <= 48
        else { return false }
        return name.utf8.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || $0 == UInt8(ascii: "_")
        }
    }

    /// A query answering whether the store's `meta` table exists in `schema`, read from `pg_class` with
    /// the statement's own snapshot (so it sees every commit before it).
    static func metaExists(_ schema: String) -> String {
        "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
            + "WHERE n.nspname = '\(schema)' AND c.relname = 'meta')"
    }

    /// Creates the schema's objects at ``currentVersion``; every statement is idempotent, and the caller
    /// holds ``creationLock`` in the same transaction.
    ///
    /// Each item row carries a version (`ver`), a value of the store's sequence `row_ids` taken by the
    /// write that wrote it (which also gives new rows their ids), bound into both ciphertexts and the
    /// rows digest, so an older copy of a row put back is seen where the digest is checked.
    ///
    /// Items have one unique index on (prim, uniq), as in SQLite, and one on (grp, class) for scans of
    /// a class in a group. Each access group's rows digest (`group_digests`, keyed by the group's blind
    /// index) carries `version`, a counter that a row-level trigger bumps with every row of the group
    /// that changes, so another connection's change is seen by every handle (SQLite's `data_version`
    /// plays this part there); it is locked with `SELECT … FOR UPDATE` before a write reads the group's
    /// rows, which serializes the writers of a group as `BEGIN IMMEDIATE` does all writers in SQLite.
    /// `group_registry` holds the keyed digest of the set of groups that have a digest row.
    static func creation(_ schema: String) -> String {
        """
        CREATE SCHEMA IF NOT EXISTS \(schema);
        CREATE TABLE IF NOT EXISTS \(schema).meta (
            id integer PRIMARY KEY CHECK (id = 1),
            schema_version integer NOT NULL,
            header bytea NOT NULL,
            checksum bytea NOT NULL,
            wrapped_key bytea NOT NULL
        );
        CREATE TABLE IF NOT EXISTS \(schema).items (
            id bigint PRIMARY KEY,
            class integer NOT NULL,
            grp bytea NOT NULL,
            uniq bytea NOT NULL,
            prim bytea NOT NULL,
            attrs bytea NOT NULL,
            data bytea NOT NULL,
            ver bigint NOT NULL,
            UNIQUE (prim, uniq)
        );
        CREATE INDEX IF NOT EXISTS items_group_class ON \(schema).items (grp, class);
        """ + groupDigests(schema)
    }

    /// The version-2 objects: per-group digests, their registry, the sequence and the triggers.
    private static func groupDigests(_ schema: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(schema).group_digests (
            grp bytea PRIMARY KEY,
            value bytea NOT NULL,
            version bigint NOT NULL DEFAULT 0
        );
        CREATE TABLE IF NOT EXISTS \(schema).group_registry (
            id integer PRIMARY KEY CHECK (id = 1),
            value bytea NOT NULL
        );
        CREATE SEQUENCE IF NOT EXISTS \(schema).row_ids;
        CREATE OR REPLACE FUNCTION \(schema).count_item_change() RETURNS trigger LANGUAGE plpgsql AS $$\(countItemChange(schema))$$;
        DROP TRIGGER IF EXISTS items_changed ON \(schema).items;
        CREATE TRIGGER items_changed AFTER INSERT OR UPDATE OR DELETE ON \(schema).items
            FOR EACH ROW EXECUTE FUNCTION \(schema).count_item_change();
        DROP TRIGGER IF EXISTS items_truncated ON \(schema).items;
        CREATE TRIGGER items_truncated AFTER TRUNCATE ON \(schema).items
            FOR EACH STATEMENT EXECUTE FUNCTION \(schema).count_item_change();
        """
    }

    /// The body of the trigger function `count_item_change` (version 2), as PostgreSQL keeps it
    /// (`pg_proc.prosrc`, the text between the dollar quotes, to the byte).
    static func countItemChange(_ schema: String) -> String {
        """

        BEGIN
            IF TG_OP = 'TRUNCATE' THEN
                UPDATE \(schema).group_digests SET version = version + 1;
                RETURN NULL;
            END IF;
            IF TG_OP <> 'INSERT' THEN
                UPDATE \(schema).group_digests SET version = version + 1 WHERE grp = OLD.grp;
            END IF;
            IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.grp IS DISTINCT FROM OLD.grp) THEN
                UPDATE \(schema).group_digests SET version = version + 1 WHERE grp = NEW.grp;
            END IF;
            RETURN NULL;
        END\u{20}
        """
    }

    /// The body of `count_item_change` in version 1, as the code of that version wrote it (commit
    /// 7d3f2cb): one counter for the whole store, bumped once per statement.
    static func version1CountItemChange(_ schema: String) -> String {
        """

        BEGIN
            UPDATE \(schema).rows_digest SET version = version + 1 WHERE id = 1;
            RETURN NULL;
        END\u{20}
        """
    }

    /// The triggers on `items` at schema `version`, by name, each as `pg_get_triggerdef` gives it,
    /// with `function` for the name of the function it runs (which PostgreSQL qualifies with its
    /// schema only when the session's search path does not find it).
    static func triggers(_ schema: String, version: Int32, function: String) -> [String: String] {
        let on = "ON \(schema).items"
        let execute = "EXECUTE FUNCTION \(function)()"
        guard version >= 2 else {
            return [
                "items_changed":
                    "CREATE TRIGGER items_changed AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE \(on) FOR EACH STATEMENT \(execute)"
            ]
        }
        return [
            "items_changed": "CREATE TRIGGER items_changed AFTER INSERT OR DELETE OR UPDATE \(on) FOR EACH ROW \(execute)",
            "items_truncated": "CREATE TRIGGER items_truncated AFTER TRUNCATE \(on) FOR EACH STATEMENT \(execute)",
        ]
    }

    /// Upgrades version-1 tables (one `rows_digest` row for the store, row versions from its counter)
    /// to version 2, inside the caller's transaction under ``creationLock``: the new objects, the
    /// sequence set past every row id and version in use, and the old digest table dropped (a handle of
    /// older code still running then fails with a missing table, never writes a digest of its own).
    /// The caller inserts the group digests and the registry, computed with the store's key.
    static func upgradeFromVersion1(_ schema: String) -> String {
        groupDigests(schema) + """
            SELECT setval('\(schema).row_ids', greatest(
                (SELECT coalesce(max(id), 0) FROM \(schema).items),
                (SELECT coalesce(max(ver), 0) FROM \(schema).items),
                (SELECT version FROM \(schema).rows_digest WHERE id = 1), 1));
            DROP TABLE \(schema).rows_digest;
            UPDATE \(schema).meta SET schema_version = 2 WHERE id = 1;
            """
    }

    /// Version 1's table of the one store-wide rows digest, for the upgrade and for tests that make a
    /// version-1 store.
    static let version1DigestTable = "rows_digest"
}
