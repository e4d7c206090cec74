internal import CLibPQ

/// The rows of one query, in binary, read cell by cell with a type check: a cell of another type,
/// NULL where a value is required, or a row or column out of range is a `wrongType` error, never a
/// crash. Each read copies the cell out.
///
/// Not `Sendable`: it owns a `PGresult`, cleared in `deinit`.
@_spi(HardtackTools) public final class PostgreSQLResult {
    private let raw: OpaquePointer
    private let sql: String

    init(_ raw: OpaquePointer, sql: String) {
        self.raw = raw
        self.sql = sql
    }

    deinit { PQclear(raw) }

    /// How many rows the query returned.
    @_spi(HardtackTools) public var rowCount: Int { Int(PQntuples(raw)) }

    /// How many columns each row has.
    @_spi(HardtackTools) public var columnCount: Int { Int(PQnfields(raw)) }

    /// How many rows an INSERT, UPDATE, DELETE (or SELECT) touched, from the command tag.
    @_spi(HardtackTools) public var affectedRows: Int { Int(String(cString: PQcmdTuples(raw))) ?? 0 }

    /// The command tag (`INSERT 0 1`, `UPDATE 3`, `SELECT 2`).
    @_spi(HardtackTools) public var commandTag: String { PQcmdStatus(raw).map { String(cString: $0) } ?? "" }

    /// The name of column `column`, or `nil` when there is no such column.
    @_spi(HardtackTools) public func columnName(_ column: Int) -> String? {
        guard column >= 0, column < columnCount, let name = PQfname(raw, Int32(column)) else { return nil }
        return String(cString: name)
    }

    /// The index of the column called `name`, or `nil`.
    @_spi(HardtackTools) public func columnIndex(named name: String) -> Int? {
        // Quoted, so the name is matched exactly rather than folded to lower case.
        let index = PQfnumber(raw, "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"")
        return index < 0 ? nil : Int(index)
    }

    /// Whether the cell is NULL.
    /// - Throws: `wrongType` when the row or column does not exist.
    @_spi(HardtackTools) public func isNull(_ row: Int, _ column: Int) throws(PostgreSQLError) -> Bool {
        try checkBounds(row, column)
        return PQgetisnull(raw, Int32(row), Int32(column)) == 1
    }

    /// A `bytea` cell, or `nil` when it is NULL.
    /// - Throws: `wrongType` for another type or a missing cell.
    @_spi(HardtackTools) public func optionalBytes(_ row: Int, _ column: Int) throws(PostgreSQLError) -> [UInt8]? {
        try cell(row, column, "bytea", [PostgreSQLTypeOID.bytea]).map { Array($0) }
    }

    /// A `bytea` cell.
    /// - Throws: `wrongType` for another type, NULL or a missing cell.
    @_spi(HardtackTools) public func bytes(_ row: Int, _ column: Int) throws(PostgreSQLError) -> [UInt8] {
        try required(optionalBytes(row, column), row, column)
    }

    /// An `int8` cell (or a narrower integer, widened), or `nil` when it is NULL.
    /// - Throws: `wrongType` for another type or a missing cell.
    @_spi(HardtackTools) public func optionalInt64(_ row: Int, _ column: Int) throws(PostgreSQLError) -> Int64? {
        let oids = [PostgreSQLTypeOID.int8, PostgreSQLTypeOID.int4, PostgreSQLTypeOID.int2]
        guard let bytes = try cell(row, column, "int8", oids) else { return nil }
        return try integer(bytes, row, column)
    }

    /// An `int8` cell (or a narrower integer, widened).
    /// - Throws: `wrongType` for another type, NULL or a missing cell.
    @_spi(HardtackTools) public func int64(_ row: Int, _ column: Int) throws(PostgreSQLError) -> Int64 {
        try required(optionalInt64(row, column), row, column)
    }

    /// An `int4` cell (or an `int2`, widened), or `nil` when it is NULL.
    /// - Throws: `wrongType` for another type (an `int8` too: it may not fit) or a missing cell.
    @_spi(HardtackTools) public func optionalInt32(_ row: Int, _ column: Int) throws(PostgreSQLError) -> Int32? {
        guard let bytes = try cell(row, column, "int4", [PostgreSQLTypeOID.int4, PostgreSQLTypeOID.int2])
        else { return nil }
        return Int32(try integer(bytes, row, column))
    }

    /// An `int4` cell (or an `int2`, widened).
    /// - Throws: `wrongType` for another type, NULL or a missing cell.
    @_spi(HardtackTools) public func int32(_ row: Int, _ column: Int) throws(PostgreSQLError) -> Int32 {
        try required(optionalInt32(row, column), row, column)
    }

    /// A `bool` cell, or `nil` when it is NULL.
    /// - Throws: `wrongType` for another type or a missing cell.
    @_spi(HardtackTools) public func optionalBool(_ row: Int, _ column: Int) throws(PostgreSQLError) -> Bool? {
        guard let bytes = try cell(row, column, "bool", [PostgreSQLTypeOID.bool]) else { return nil }
        guard bytes.count == 1 else { throw malformed(row, column, "bool") }
        return bytes[0] != 0
    }

    /// A `bool` cell.
    /// - Throws: `wrongType` for another type, NULL or a missing cell.
    @_spi(HardtackTools) public func bool(_ row: Int, _ column: Int) throws(PostgreSQLError) -> Bool {
        try required(optionalBool(row, column), row, column)
    }

    /// A text cell (`text`, `varchar`, `char`, `name`), or `nil` when it is NULL.
    /// - Throws: `wrongType` for another type, invalid UTF-8 or a missing cell.
    @_spi(HardtackTools) public func optionalString(_ row: Int, _ column: Int) throws(PostgreSQLError) -> String? {
        let oids = [PostgreSQLTypeOID.text, PostgreSQLTypeOID.varchar, PostgreSQLTypeOID.bpchar, PostgreSQLTypeOID.name]
        guard let bytes = try cell(row, column, "text", oids) else { return nil }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw malformed(row, column, "text") }
        return text
    }

    /// A text cell (`text`, `varchar`, `char`, `name`).
    /// - Throws: `wrongType` for another type, NULL, invalid UTF-8 or a missing cell.
    @_spi(HardtackTools) public func string(_ row: Int, _ column: Int) throws(PostgreSQLError) -> String {
        try required(optionalString(row, column), row, column)
    }

    /// A cell of a text-format result (the simple query protocol's), as the server wrote it: decimal
    /// digits for a number, `\x` and hex digits for `bytea`.
    /// - Throws: `wrongType` for a binary-format cell, NULL or invalid UTF-8.
    @_spi(HardtackTools) public func serverText(_ row: Int, _ column: Int) throws(PostgreSQLError) -> String {
        try checkBounds(row, column)
        guard PQfformat(raw, Int32(column)) == 0 else {
            throw PostgreSQLError(.wrongType, message: "\(name(column)) is in binary format, not text", sql: sql)
        }
        guard PQgetisnull(raw, Int32(row), Int32(column)) == 0, let value = PQgetvalue(raw, Int32(row), Int32(column))
        else { throw PostgreSQLError(.wrongType, message: "\(name(column)) of row \(row) is NULL", sql: sql) }
        return String(cString: value)
    }

    // MARK: - Cells

    private func checkBounds(_ row: Int, _ column: Int) throws(PostgreSQLError) {
        guard row >= 0, row < rowCount, column >= 0, column < columnCount else {
            throw PostgreSQLError(
                .wrongType, message: "no cell at row \(row), column \(column) (\(rowCount) rows of \(columnCount) columns)",
                sql: sql)
        }
    }

    /// The cell's bytes, `nil` when NULL, after checking its type is one of `oids`.
    private func cell(_ row: Int, _ column: Int, _ wanted: String, _ oids: [UInt32]) throws(PostgreSQLError)
        -> UnsafeRawBufferPointer?
    {
        try checkBounds(row, column)
        let type = PQftype(raw, Int32(column))
        guard oids.contains(type), PQfformat(raw, Int32(column)) == 1 else {
            let format = PQfformat(raw, Int32(column)) == 1 ? "" : " in text format"
            throw PostgreSQLError(
                .wrongType, message: "\(name(column)) is \(PostgreSQLTypeOID.name(of: type))\(format), not \(wanted)",
                sql: sql)
        }
        if PQgetisnull(raw, Int32(row), Int32(column)) == 1 { return nil }
        let count = Int(PQgetlength(raw, Int32(row), Int32(column)))
        return UnsafeRawBufferPointer(start: PQgetvalue(raw, Int32(row), Int32(column)), count: count)
    }

    private func integer(_ bytes: UnsafeRawBufferPointer, _ row: Int, _ column: Int) throws(PostgreSQLError) -> Int64 {
        switch bytes.count {
        case 8: return Int64(bigEndian: bytes.loadUnaligned(as: Int64.self))
        case 4: return Int64(Int32(bigEndian: bytes.loadUnaligned(as: Int32.self)))
        case 2: return Int64(Int16(bigEndian: bytes.loadUnaligned(as: Int16.self)))
        default: throw malformed(row, column, "integer")
        }
    }

    private func required<T>(_ value: T?, _ row: Int, _ column: Int) throws(PostgreSQLError) -> T {
        guard let value else {
            throw PostgreSQLError(.wrongType, message: "\(name(column)) of row \(row) is NULL", sql: sql)
        }
        return value
    }

    private func malformed(_ row: Int, _ column: Int, _ type: String) -> PostgreSQLError {
        PostgreSQLError(.wrongType, message: "\(name(column)) of row \(row) is not a valid \(type)", sql: sql)
    }

    private func name(_ column: Int) -> String {
        "column \(column)" + (columnName(column).map { " (\"\($0)\")" } ?? "")
    }
}
