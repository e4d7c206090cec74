import StoreCore
internal import CSQLite
import Data

/// A prepared statement, finalized in `deinit`. Bound blobs are copied at bind time into buffers the
/// statement owns, one per parameter, which SQLite reads in place (`SQLITE_STATIC`): they outlive every
/// step, and are freed only after the statement is finalized. (SQLite's own copy, `SQLITE_TRANSIENT`,
/// cost an allocation at each bind and a free at each reset.) Column blobs are copied out at once.
final class SQLiteStatement {
    private let raw: OpaquePointer
    private unowned let connection: SQLiteConnection
    private let sql: String
    /// The buffer each blob parameter was last copied into (grown as needed), by parameter position - 1.
    private var bindBuffers: [UnsafeMutableRawBufferPointer?]

    init(_ raw: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.raw = raw
        self.connection = connection
        self.sql = sql
        bindBuffers = Array(repeating: nil, count: Int(sqlite3_bind_parameter_count(raw)))
    }

    deinit {
        sqlite3_finalize(raw)
        for case let buffer? in bindBuffers {
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            buffer.deallocate()
        }
    }

    /// Resets the statement for reuse and clears its bindings, so no secret stays bound.
    func reset() {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
    }

    /// Binds an integer to the 1-based parameter `index`.
    func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(raw, index, value)
    }

    /// Binds bytes to the 1-based parameter `index`, with an explicit length.
    func bind(_ bytes: [UInt8], at index: Int32) {
        bytes.withUnsafeBytes { bindCopy($0, at: index) }
    }

    /// Binds a blind index to the 1-based parameter `index`.
    func bind(_ value: BlindIndex, at index: Int32) {
        value.withUnsafeBytes { bindCopy($0, at: index) }
    }

    /// Copies `bytes` into the statement's buffer for parameter `index` and binds them from there.
    private func bindCopy(_ bytes: UnsafeRawBufferPointer, at index: Int32) {
        let slot = Int(index) - 1
        guard bindBuffers.indices.contains(slot) else {
            // No such parameter: SQLite refuses the bind (SQLITE_RANGE), as it would any other.
            _ = sqlite3_bind_blob(raw, index, UnsafeRawPointer(bitPattern: 1)!, 0, nil)
            return
        }
        var buffer: UnsafeMutableRawBufferPointer
        if let existing = bindBuffers[slot], existing.count >= bytes.count {
            buffer = existing
        } else {
            // The old buffer may still be bound: SQLite reads bindings only while stepping, and this
            // parameter is bound to the new one before the statement steps again.
            if let existing = bindBuffers[slot] {
                existing.initializeMemory(as: UInt8.self, repeating: 0)
                existing.deallocate()
            }
            // Never empty, so that a zero-length blob is a blob (a non-null pointer), not NULL.
            buffer = .allocate(byteCount: max(bytes.count, 32), alignment: 8)
            bindBuffers[slot] = buffer
        }
        if bytes.count > 0 { buffer.copyMemory(from: bytes) }
        _ = sqlite3_bind_blob(raw, index, buffer.baseAddress!, Int32(bytes.count), nil)  // SQLITE_STATIC
    }

    /// Steps once: `true` when a row is ready, `false` when done.
    func step() throws(SecureStoreError) -> Bool {
        let code = sqlite3_step(raw)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(code, sql: sql)
            reset()
            throw error
        }
    }

    /// Steps a statement that returns no rows, then resets it.
    func run() throws(SecureStoreError) {
        defer { reset() }
        _ = try step()
    }

    /// A constraint a statement may be expected to hit.
    enum Constraint {
        /// A NOT NULL column was given NULL.
        case notNull

        var extendedCode: Int32 {
            switch self {
            // SQLITE_CONSTRAINT_NOTNULL, which Swift cannot import (the macro is an expression).
            case .notNull: SQLITE_CONSTRAINT | (5 << 8)
            }
        }
    }

    /// Steps a statement that returns no rows, then resets it; `false` when it failed on `constraint`
    /// (and so changed nothing), which is not an error here.
    func run(unlessConstraint constraint: Constraint) throws(SecureStoreError) -> Bool {
        defer { reset() }
        let code = sqlite3_step(raw)
        if code == SQLITE_DONE || code == SQLITE_ROW { return true }
        if code == constraint.extendedCode { return false }
        throw connection.error(code, sql: sql)
    }

    /// The integer in column `index` of the current row (SQLite converts any other value to one).
    func int64(at index: Int32) -> Int64 { sqlite3_column_int64(raw, index) }

    /// The integer in column `index` of the current row, or `nil` when the cell holds any other type.
    /// Where SQL compares the cell with an integer, a blob or text that SQLite would convert to the
    /// same number is not equal to it: such a cell is damage, not that number.
    func strictInteger(at index: Int32) -> Int64? {
        sqlite3_column_type(raw, index) == SQLITE_INTEGER ? sqlite3_column_int64(raw, index) : nil
    }

    /// A copy of the blob in column `index` of the current row.
    func bytes(at index: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(raw, index))
        guard count > 0, let base = sqlite3_column_blob(raw, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The blob in column `index` of the current row as a blind index, or `nil` when it is not a blob
    /// (text with the same bytes is not equal to it in SQL) or not exactly `count` bytes long.
    func blindIndex(at index: Int32, count: Int) -> BlindIndex? {
        guard sqlite3_column_type(raw, index) == SQLITE_BLOB else { return nil }
        let length = Int(sqlite3_column_bytes(raw, index))
        guard length == count else { return nil }
        guard count > 0, let base = sqlite3_column_blob(raw, index) else {
            return BlindIndex(copying: UnsafeRawBufferPointer(start: nil, count: 0), expectedCount: count)
        }
        return BlindIndex(copying: UnsafeRawBufferPointer(start: base, count: count), expectedCount: count)
    }

    /// The text in column `index` of the current row.
    func text(at index: Int32) -> String? {
        guard let text = sqlite3_column_text(raw, index) else { return nil }
        return String(cString: text)
    }

    /// The text in column `index` of the current row, every byte of it (``text(at:)`` stops at the
    /// first NUL byte, which text written into the file by other means may hold); `nil` for NULL.
    func wholeText(at index: Int32) -> String? {
        guard let text = sqlite3_column_text(raw, index) else { return nil }
        let count = Int(sqlite3_column_bytes(raw, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }
}
