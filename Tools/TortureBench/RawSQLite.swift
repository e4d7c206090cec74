internal import CSQLite

/// A plain SQLite connection to a store file: the bench's stand-in for a disk or an attacker that
/// edits rows behind the store's back. Opened only while no store handle is open on the file.
final class RawSQLite {
    /// One column value.
    enum Value: Equatable {
        case integer(Int64)
        case blob([UInt8])
        case text(String)
        case null

        /// The bytes of a blob (or of text), else nothing.
        var bytes: [UInt8] {
            switch self {
            case .blob(let bytes): bytes
            case .text(let text): Array(text.utf8)
            default: []
            }
        }

        /// The integer, or 0.
        var integer: Int64 {
            if case .integer(let number) = self { number } else { 0 }
        }
    }

    /// A failed call, with SQLite's message.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let handle: OpaquePointer

    /// Opens an existing store file for reading and writing, through the store's page-checksum VFS:
    /// edits carry valid page checksums (an attacker who knows the format), so what stops them is the
    /// store's row-level defences. A store must have been opened in this process first (it registers
    /// the VFS).
    init(path: String) throws {
        guard sqlite3_vfs_find("hardtack-checksum") != nil else {
            throw Failure(description: "open a store first: the hardtack-checksum VFS is not registered")
        }
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, "hardtack-checksum")
        guard code == SQLITE_OK, let db else {
            sqlite3_close_v2(db)
            throw Failure(description: "cannot open \(path): SQLite code \(code)")
        }
        handle = db
        sqlite3_busy_timeout(db, 5000)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs `sql` with `parameters` and returns every row.
    @discardableResult
    func query(_ sql: String, _ parameters: [Value] = []) throws -> [[Value]] {
        var raw: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &raw, nil) == SQLITE_OK, let statement = raw else {
            throw Failure(description: "\(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
        defer { sqlite3_finalize(statement) }
        for (offset, parameter) in parameters.enumerated() {
            let index = Int32(offset + 1)
            switch parameter {
            case .integer(let number): sqlite3_bind_int64(statement, index, number)
            case .text(let text): sqlite3_bind_text(statement, index, text, -1, transient)
            case .null: sqlite3_bind_null(statement, index)
            case .blob(let bytes):
                bytes.withUnsafeBytes { buffer in
                    _ = sqlite3_bind_blob(
                        statement, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, Int32(buffer.count),
                        transient)
                }
            }
        }
        var rows: [[Value]] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw Failure(description: "\(sql): \(String(cString: sqlite3_errmsg(handle)))")
            }
            rows.append((0..<sqlite3_column_count(statement)).map { column(statement, $0) })
        }
        return rows
    }

    /// The first column of the first row.
    func value(_ sql: String, _ parameters: [Value] = []) throws -> Value {
        guard let value = try query(sql, parameters).first?.first else { throw Failure(description: "\(sql): no row") }
        return value
    }

    private func column(_ statement: OpaquePointer, _ index: Int32) -> Value {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(statement, index)))
        case SQLITE_NULL: return .null
        default:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard count > 0, let base = sqlite3_column_blob(statement, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: base, count: count)))
        }
    }
}

/// SQLite's "copy the bytes now" destructor.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
