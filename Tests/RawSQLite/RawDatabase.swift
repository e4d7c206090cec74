internal import CSQLite

/// A plain SQLite connection to a store file: the tests' and the torture bench's stand-in for an
/// attacker (or a disk) that edits rows behind the store's back. A store handle open on the file at
/// the same time sees its writes as another connection's commits.
///
/// By default it goes through the store's page-checksum VFS, so its writes carry valid page checksums:
/// an attacker who knows the file format, which leaves the row-level defences (ciphertext bound to
/// its row, the rows digest) as the only ones between an edit and a wrong answer. With `checksums:
/// false` it is plain SQLite, whose writes leave the page checksums stale.
public final class RawDatabase {
    /// One column value.
    public enum Value: Equatable, Sendable {
        /// An INTEGER.
        case integer(Int64)
        /// A BLOB.
        case blob([UInt8])
        /// TEXT.
        case text(String)
        /// NULL.
        case null

        /// The bytes of a blob, or `nil` for any other value.
        public var bytes: [UInt8]? {
            if case .blob(let bytes) = self { bytes } else { nil }
        }

        /// The integer, or `nil` for any other value.
        public var integer: Int64? {
            if case .integer(let number) = self { number } else { nil }
        }
    }

    /// A failed SQLite call, with SQLite's message.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed, with SQLite's message.
        public let description: String

        /// A failure described by `description`.
        public init(description: String) { self.description = description }
    }

    private let handle: OpaquePointer

    /// Opens a database file for reading and writing; creates it only when `create` is set. It waits
    /// up to 5 s for a lock another connection holds.
    public init(path: String, create: Bool = false, checksums: Bool = true) throws {
        // The store registers its VFS when it opens its first file: open a store in this process first.
        let vfs = checksums ? "hardtack-checksum" : nil
        if let vfs, sqlite3_vfs_find(vfs) == nil {
            throw Failure(description: "open a store before a raw connection: the \(vfs) VFS is not registered yet")
        }
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0), vfs)
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
    public func query(_ sql: String, _ parameters: [Value] = []) throws -> [[Value]] {
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

    /// The single value `sql` selects.
    public func value(_ sql: String, _ parameters: [Value] = []) throws -> Value {
        guard let value = try query(sql, parameters).first?.first else {
            throw Failure(description: "\(sql): no row")
        }
        return value
    }

    /// The blob `sql` selects.
    public func blob(_ sql: String, _ parameters: [Value] = []) throws -> [UInt8] {
        guard let bytes = try value(sql, parameters).bytes else { throw Failure(description: "\(sql): not a blob") }
        return bytes
    }

    /// Sets one column of one item row.
    public func setItemColumn(_ column: String, of id: Int64, to value: Value) throws {
        try query("UPDATE items SET \(column) = ? WHERE id = ?", [value, .integer(id)])
    }

    /// Swaps one column between two item rows, in one transaction so that a UNIQUE column can swap.
    public func swapItemColumn(_ column: String, _ first: Int64, _ second: Int64) throws {
        let a = try value("SELECT \(column) FROM items WHERE id = ?", [.integer(first)])
        let b = try value("SELECT \(column) FROM items WHERE id = ?", [.integer(second)])
        try query("BEGIN")
        try setItemColumn(column, of: first, to: .blob(Array(repeating: 0xEE, count: 17)))  // frees a UNIQUE value
        try setItemColumn(column, of: second, to: a)
        try setItemColumn(column, of: first, to: b)
        try query("COMMIT")
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
