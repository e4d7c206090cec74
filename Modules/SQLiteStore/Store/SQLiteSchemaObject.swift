/// One object of a database's schema (a row of `sqlite_master`): a table, an index, a trigger or a
/// view, with the SQL that makes it as SQLite keeps it.
struct SQLiteSchemaObject: Hashable, Sendable {
    /// `table`, `index`, `trigger` or `view`.
    let type: String
    /// The object's name.
    let name: String
    /// The table it belongs to (its own name for a table or a view).
    let table: String
    /// The statement that makes it, as SQLite stored it (the statement's text from its name on, with
    /// `IF NOT EXISTS` and the like removed); `nil` for an index SQLite made for a UNIQUE constraint.
    let sql: String?

    /// The name as a message may show it: printable ASCII only, at most 64 characters (the name is
    /// the file's, which anyone who could write the file chose).
    var shownName: String {
        String(name.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F }.prefix(64).map(Character.init))
    }

    /// The type as a message may show it: one of the four SQLite writes, or "schema object".
    var shownType: String {
        ["table", "index", "trigger", "view"].contains(type) ? type : "schema object"
    }
}
