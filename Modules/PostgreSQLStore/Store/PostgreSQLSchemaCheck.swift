import Data
import StoreCore

/// The check that the code that runs on the store's tables is the store's own, to the byte.
///
/// Whoever can change the store's schema on the server (its owner, a superuser) could put code there
/// that runs in every one of the store's transactions: a trigger of their own on `items`, the body of
/// the store's own trigger function replaced under its name (copying every row elsewhere, or no
/// longer counting changes, so that other instances keep serving rows from their caches), a rule or a
/// row security policy. The store opens only when its schema holds exactly the triggers and the
/// function its version makes, each defined as the store defines it, and no rule or policy on its
/// tables.
enum PostgreSQLSchemaCheck {
    /// Every trigger on a table of the store's schema, every function in it, and every rule and row
    /// security policy on its tables: kind, name, definition as the server prints it, the schema of a
    /// trigger's function, whether that function is found by the search path, and a trigger's state.
    private static let query = """
        SELECT 'trigger', t.tgname::text, pg_catalog.pg_get_triggerdef(t.oid), fn.nspname::text,
            pg_catalog.pg_function_is_visible(t.tgfoid)::text, t.tgenabled::text
        FROM pg_catalog.pg_trigger t
        JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
        JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_catalog.pg_proc p ON p.oid = t.tgfoid
        JOIN pg_catalog.pg_namespace fn ON fn.oid = p.pronamespace
        WHERE n.nspname = $1 AND NOT t.tgisinternal
        UNION ALL
        SELECT 'function', p.proname::text,
            CASE WHEN p.prokind = 'f' THEN pg_catalog.pg_get_functiondef(p.oid) END, NULL, NULL, NULL
        FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = $1
        UNION ALL
        SELECT 'rule', r.rulename::text, NULL, NULL, NULL, NULL
        FROM pg_catalog.pg_rewrite r
        JOIN pg_catalog.pg_class c ON c.oid = r.ev_class
        JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1
        UNION ALL
        SELECT 'row security policy', p.polname::text, NULL, NULL, NULL, NULL
        FROM pg_catalog.pg_policy p
        JOIN pg_catalog.pg_class c ON c.oid = p.polrelid
        JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1
        ORDER BY 1, 2
        """

    /// The definition `pg_get_functiondef` gives of the trigger function whose body is `body`.
    static func functionDefinition(_ schema: String, body: String) -> String {
        "CREATE OR REPLACE FUNCTION \(schema).count_item_change()\n RETURNS trigger\n LANGUAGE plpgsql\n"
            + "AS $function$\(body)$function$\n"
    }

    /// Refuses a store whose schema (at `version`) holds a trigger, function, rule or policy the store
    /// did not make, one of its own defined otherwise or switched off, or lacks one of its own.
    ///
    /// Another instance may upgrade the tables between the caller's read of their version and this
    /// check (in one transaction, so the check sees one version's objects or the other's): what does
    /// not match `version` is checked again at the version the tables have then.
    /// - Throws: ``SecureStoreError/integrityFailure(_:)`` naming the object; never its definition.
    static func refuseForeignCode(_ storage: PostgreSQLItemStorage, version: Int32) throws(SecureStoreError) {
        do {
            try check(storage, version: version)
        } catch .integrityFailure(let message) {
            let now = try storage.run("SELECT schema_version FROM \(storage.schema).meta WHERE id = 1")
            guard now.rowCount == 1,
                let current = try? PostgreSQLStoreOpener.translated({ () throws(PostgreSQLError) in try now.int32(0, 0) }),
                current > version, current <= PostgreSQLSchema.currentVersion
            else { throw .integrityFailure(message) }
            try check(storage, version: current)
        }
    }

    /// ``refuseForeignCode(_:version:)`` at `version`, once.
    private static func check(_ storage: PostgreSQLItemStorage, version: Int32) throws(SecureStoreError) {
        let schema = storage.schema
        let result = try storage.run(query, [.text(schema)])
        let body = version >= 2 ? PostgreSQLSchema.countItemChange(schema) : PostgreSQLSchema.version1CountItemChange(schema)
        var missing = Set(PostgreSQLSchema.triggers(schema, version: version, function: "").keys).union(["count_item_change"])
        for row in 0..<result.rowCount {
            let (kind, name, definition, functionSchema, visible, enabled) = try PostgreSQLStoreOpener.translated {
                () throws(PostgreSQLError) -> (String, String, String?, String?, String?, String?) in
                (
                    try result.string(row, 0), try result.string(row, 1), try result.optionalString(row, 2),
                    try result.optionalString(row, 3), try result.optionalString(row, 4), try result.optionalString(row, 5)
                )
            }
            let expected: String?
            switch kind {
            case "trigger":
                let function = (visible == "true" ? "" : "\(schema).") + "count_item_change"
                // The function must be the store's own, wherever the search path would look first.
                expected =
                    functionSchema == schema && enabled == "O"
                    ? PostgreSQLSchema.triggers(schema, version: version, function: function)[name] : nil
            case "function" where name == "count_item_change":
                expected = functionDefinition(schema, body: body)
            default:
                expected = nil
            }
            guard let expected, definition == expected else {
                let own = missing.contains(name) && (kind == "trigger" || kind == "function")
                throw .integrityFailure(
                    "the store's tables hold a \(kind) the store did not make (\(shown(name))"
                        + (own ? ", under the name of one of the store's own but defined otherwise or switched off" : "")
                        + "): the store's schema was changed outside Hardtack")
            }
            missing.remove(name)
        }
        if let name = missing.sorted().first {
            throw .integrityFailure(
                "the store's tables lack the \(name == "count_item_change" ? "function" : "trigger") \(name) that the "
                    + "store makes: the store's schema was changed outside Hardtack")
        }
    }

    /// A name as a message may show it: printable ASCII only, at most 64 characters (anyone who could
    /// change the schema chose it).
    private static func shown(_ name: String) -> String {
        String(name.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F }.prefix(64).map(Character.init))
    }
}
