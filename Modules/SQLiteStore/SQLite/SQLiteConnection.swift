import StoreCore
internal import CSQLite
import Data

/// One open SQLite database handle and its prepared statements.
///
/// Not `Sendable`: a connection is owned by exactly one store and used only under that store's lock.
/// Statements are prepared once per SQL text and reused; `deinit` finalizes them and closes the handle.
final class SQLiteConnection {
    private let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    /// `BEGIN IMMEDIATE` and `COMMIT` (also in `statements`), held here once prepared: every write runs
    /// both, and finding them by their text hashed it each time.
    private var beginStatement: SQLiteStatement?
    private var commitStatement: SQLiteStatement?
    /// The busy handler's state; it lives as long as the handle that calls back with it.
    private let busyWait = SQLiteBusyWait()

    /// Opens (creating if needed, unless read-only) the database file at `path`, always through the
    /// page-checksum VFS (`SQLiteChecksumVFS`), read-only too.
    init(path: String, access: SQLiteStoreAccess = .readWrite) throws(SecureStoreError) {
        var db: OpaquePointer?
        // No SQLite mutex: a connection is used by one thread at a time (its store's lock), so
        // SQLite's own locking on every call would only cost time.
        let mode =
            switch access {
            case .readWrite: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
            case .readOnly: SQLITE_OPEN_READONLY
            case .immutable: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            }
        let flags = mode | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(access.fileName(path), &db, flags, SQLiteChecksumVFS.registeredName)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            let systemErrno = db.map { sqlite3_system_errno($0) } ?? 0
            sqlite3_close_v2(db)
            throw .storage(
                SQLiteFailure.failure(code: code, systemErrno: systemErrno, message: message, doing: "open the store's file"))
        }
        // The file may come from anyone who could write it: its own triggers or views must not reach
        // functions with side effects, nor its schema be made writable.
        let hardened = hardtack_sqlite3_harden(db)
        guard hardened == SQLITE_OK else {
            sqlite3_close_v2(db)
            throw .storage(
                SQLiteFailure.failure(
                    code: hardened, systemErrno: 0, message: "defensive settings refused", doing: "open the store's file"))
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        beginStatement = nil
        commitStatement = nil
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// The start of the WAL-index (the `-shm` file's first region) as SQLite has mapped it for this
    /// connection, or `nil` when it has none mapped (not in WAL mode, or nothing read yet). Valid while the
    /// connection is open. Asked only of a database in WAL mode: on another, asking would open shared memory
    /// SQLite never closes.
    var walIndex: UnsafeRawPointer? {
        guard (try? scalarText("PRAGMA journal_mode"))??.lowercased() == "wal" else { return nil }
        return hardtack_sqlite3_wal_index(handle)
    }

    /// Sets how long a statement waits for another connection's lock before failing with busy.
    ///
    /// While it waits it tries again every millisecond or so, however long it has waited. SQLite's own
    /// handler (`sqlite3_busy_timeout`) sleeps longer and longer, up to 100 ms between tries, so a
    /// connection that has waited a while loses every gap to fresher ones and can be starved into a
    /// busy error while others write back to back (the torture bench's contention scenario).
    func setBusyTimeout(milliseconds: Int32, onLongWait: (@Sendable () -> Void)? = nil) {
        busyWait.limitNanoseconds = UInt64(max(0, milliseconds)) * 1_000_000
        busyWait.onLongWait = onLongWait
        sqlite3_busy_handler(
            handle, { context, attempts in SQLiteBusyWait.retry(context, attempts) },
            Unmanaged.passUnretained(busyWait).toOpaque())
    }

    /// Runs `body` with another connection's lock failing at once as busy rather than being waited for.
    func withoutWaiting<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        busyWait.refusesToWait = true
        defer { busyWait.refusesToWait = false }
        return try body()
    }

    /// Starts a `BEGIN IMMEDIATE` transaction (taking the write lock now) with a statement prepared once.
    func beginImmediate() throws(SecureStoreError) {
        if beginStatement == nil { beginStatement = try prepared("BEGIN IMMEDIATE") }
        try beginStatement!.run()
    }

    /// Commits the open transaction with a statement prepared once.
    func commit() throws(SecureStoreError) {
        if commitStatement == nil { commitStatement = try prepared("COMMIT") }
        try commitStatement!.run()
    }

    /// Rolls back the open transaction with a statement prepared once.
    func rollback() throws(SecureStoreError) {
        try prepared("ROLLBACK").run()
    }

    /// Runs SQL with no parameters and no result rows (pragmas, DDL, transaction control).
    func execute(_ sql: String) throws(SecureStoreError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, sql: sql) }
    }

    /// Runs a pragma or query and returns the first column of its first row as text.
    func scalarText(_ sql: String) throws(SecureStoreError) -> String? {
        let statement = try prepared(sql)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return statement.text(at: 0)
    }

    /// The cached prepared statement for `sql`, preparing it on first use.
    func prepared(_ sql: String) throws(SecureStoreError) -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard code == SQLITE_OK, let raw else {
            // The store's SQL is fixed and right for its schema: when it no longer compiles (no such
            // column, an unreadable schema format), the schema in the file was damaged.
            if code & 0xff == SQLITE_ERROR {
                throw .integrityFailure(
                    "the database's schema is damaged (\(String(cString: sqlite3_errmsg(handle))))")
            }
            throw error(code, sql: sql)
        }
        let statement = SQLiteStatement(raw, connection: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// How many rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// The row id of the last insert on this connection.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether the connection is inside an open transaction.
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// The pager's data version (`SQLITE_FCNTL_DATA_VERSION`): it changes with each commit of this
    /// connection and when a read transaction finds the file changed by another; read from memory, no
    /// statement. `nil` if SQLite refuses the call.
    var pagerDataVersion: UInt32? {
        var version: UInt32 = 0
        return sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK ? version : nil
    }

    /// The bytes reserved at the end of each page, as the database's header says (0 for a new file).
    var reservedBytes: Int32 {
        var value: Int32 = -1  // negative: only ask
        sqlite3_file_control(handle, "main", SQLITE_FCNTL_RESERVE_BYTES, &value)
        return value
    }

    /// Asks for room for a page checksum at the end of every page. It takes effect at once on a new,
    /// empty file, and on an existing one at its next `VACUUM`.
    func reservePageChecksums() {
        var value = SQLiteChecksumVFS.reservedBytes
        sqlite3_file_control(handle, "main", SQLITE_FCNTL_RESERVE_BYTES, &value)
    }

    /// Checkpoints the write-ahead log and truncates it to zero bytes.
    func checkpointTruncate() throws(SecureStoreError) {
        let code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
        guard code == SQLITE_OK else { throw error(code, sql: "wal_checkpoint(TRUNCATE)") }
    }

    /// Translates a result code into a store error that names the SQL but no bound value.
    func error(_ code: Int32, sql: String) -> SecureStoreError {
        let message = String(cString: sqlite3_errmsg(handle))
        if code == SQLiteChecksumVFS.damagedPageCode {
            return .integrityFailure("a page of the database file is damaged (its checksum does not match)")
        }
        switch code & 0xff {
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return .integrityFailure("the database file is damaged (\(message))")
        // SQLITE_CONSTRAINT_UNIQUE and _PRIMARYKEY (C macros Swift cannot import): only a unique key clash
        // is a duplicate item; any other constraint failing is a damaged or foreign schema.
        case SQLITE_CONSTRAINT where code == 2067 || code == 1555:
            return .duplicateItem
        default:
            let shown = sql.count > 80 ? String(sql.prefix(80)) + "…" : sql
            return .storage(
                SQLiteFailure.failure(
                    code: code, systemErrno: sqlite3_system_errno(handle), message: message, statement: shown))
        }
    }
}
