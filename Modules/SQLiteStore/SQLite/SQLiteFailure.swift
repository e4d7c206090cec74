internal import CSQLite
import Data
import StoreCore

/// SQLite's result codes said in words, by kind: a full disk, a read-only file, a held lock or a
/// refused permission each reads as what it is, with the result code and statement kept as the detail.
enum SQLiteFailure {
    /// The failure for result `code` (extended) with SQLite's `message`, the `errno` behind an I/O
    /// error, and the statement that failed (which binds values as parameters, so names none).
    static func failure(
        code: Int32, systemErrno: Int32, message: String, statement: String? = nil, doing: String? = nil
    ) -> StorageFailure {
        let kind = kind(code: code, systemErrno: systemErrno)
        let what: String =
            switch kind {
            case .busy: "another process holds the store's lock"
            case .full: "the disk is full"
            case .readOnly: "the store's file or directory cannot be written"
            case .permission: "permission to the store's file or directory was denied"
            case .resources: "SQLite ran out of memory"
            default: message
            }
        var detail = "SQLite result \(code) (\(String(cString: sqlite3_errstr(code))))"
        if systemErrno != 0 { detail += ", errno \(systemErrno)" }
        if let statement { detail += " in `\(statement)`" }
        return StorageFailure(
            backend: "SQLite", kind: kind, message: doing.map { "cannot \($0): \(what)" } ?? what, detail: detail)
    }

    /// The kind an extended result code means, using the system's `errno` where SQLite only says I/O.
    static func kind(code: Int32, systemErrno: Int32) -> StorageFailure.Kind {
        switch code & 0xff {
        case SQLITE_BUSY, SQLITE_LOCKED: .busy
        case SQLITE_FULL: .full
        case SQLITE_READONLY: .readOnly
        case SQLITE_PERM, SQLITE_AUTH: .permission
        case SQLITE_NOMEM: .resources
        case SQLITE_IOERR, SQLITE_CANTOPEN:
            systemErrno == 0 ? .other : StorageFailure.kind(errno: systemErrno)
        default: .other
        }
    }
}
