@_spi(HardtackTools) import PostgreSQLStore
import Testing

/// Binary parameters and results, cell type checks, and the prepared-statement cache.
@Suite struct PostgreSQLValueTests {
    static let everyByte = (0...255).map { UInt8($0) }

    @Test(arguments: [false, true])
    func everyTypeRoundTripsInBinary(prepared: Bool) throws {
        let connection = try TestServer.connect()
        let sql = "SELECT $1::bytea, $2::int8, $3::int4, $4::bool, $5::text, $6::bytea, $7::bytea, $8::text, $9::int8"
        let parameters: [PostgreSQLValue] = [
            .bytes(Self.everyByte), .int64(.min), .int32(-2), .bool(true), .text("Grüße 🔐 \u{1}"), .null,
            .bytes([]), .text(""), .int64(.max),
        ]
        let result =
            try prepared ? connection.prepared(sql, parameters) : connection.query(sql, parameters)
        #expect(result.rowCount == 1 && result.columnCount == 9)
        #expect(try result.bytes(0, 0) == Self.everyByte)
        #expect(try result.int64(0, 1) == .min)
        #expect(try result.int32(0, 2) == -2)
        #expect(try result.bool(0, 3) == true)
        #expect(try result.string(0, 4) == "Grüße 🔐 \u{1}")
        #expect(try result.isNull(0, 5))
        #expect(try result.optionalBytes(0, 5) == nil)
        #expect(try result.bytes(0, 6) == [])
        #expect(try !result.isNull(0, 6))
        #expect(try result.string(0, 7) == "")
        #expect(try result.int64(0, 8) == .max)
    }

    @Test func theServerSeesTheValuesNotTheirText() throws {
        let connection = try TestServer.connect()
        let result = try connection.query(
            "SELECT length($1), $2 = 4294967296, $3 < 0, NOT $4, octet_length($5)",
            [.bytes(Self.everyByte), .int64(1 << 32), .int32(.min), .bool(false), .text("é")])
        #expect(try result.int32(0, 0) == 256)
        #expect(try result.bool(0, 1))
        #expect(try result.bool(0, 2))
        #expect(try result.bool(0, 3))
        #expect(try result.int32(0, 4) == 2)
    }

    @Test func aCellOfAnotherTypeOrNullIsReportedNotCrashedOn() throws {
        let connection = try TestServer.connect()
        let result = try connection.query(
            "SELECT 5::int8 AS big, NULL::text AS nothing, 'x'::text AS word, 7::int2 AS small")
        let wrong = try #require(throws: PostgreSQLError.self) { try result.string(0, 0) }
        #expect(wrong.kind == .wrongType)
        #expect(wrong.description.contains("int8") && wrong.description.contains("big"), "\(wrong)")
        // An int8 may not fit an Int32: refused, not truncated.
        #expect(throws: PostgreSQLError.self) { try result.int32(0, 0) }
        let null = try #require(throws: PostgreSQLError.self) { try result.string(0, 1) }
        #expect(null.kind == .wrongType && null.description.contains("NULL"))
        #expect(try result.optionalString(0, 1) == nil)
        #expect(throws: PostgreSQLError.self) { try result.bytes(0, 2) }
        #expect(throws: PostgreSQLError.self) { try result.string(1, 0) }
        #expect(throws: PostgreSQLError.self) { try result.string(0, 9) }
        #expect(throws: PostgreSQLError.self) { try result.isNull(-1, 0) }
        // Narrower integers widen.
        #expect(try result.int64(0, 3) == 7 && result.int32(0, 3) == 7)
        #expect(result.columnIndex(named: "word") == 2)
        #expect(result.columnIndex(named: "WORD") == nil)
        #expect(result.columnName(1) == "nothing")
    }

    @Test func preparedStatementsArePreparedOnceAndReused() throws {
        let connection = try TestServer.connect()
        let sql = "SELECT $1::int8 * 2"
        for value in Int64(1)...5 {
            #expect(try connection.prepared(sql, [.int64(value)]).int64(0, 0) == value * 2)
        }
        #expect(connection.preparedStatementCount == 1)
        let server = try connection.query(
            "SELECT count(*), sum(generic_plans + custom_plans)::int8 FROM pg_prepared_statements WHERE statement = $1",
            [.text(sql)])
        #expect(try server.int64(0, 0) == 1)
        // The introspection query above ran unprepared: the five runs are the statement's only ones.
        #expect(try server.int64(0, 1) == 5)
        // Other parameter types are another statement.
        #expect(try connection.prepared(sql, [.int32(4)]).int64(0, 0) == 8)
        #expect(connection.preparedStatementCount == 2)
    }

    @Test func aStatementThatFailsToPrepareIsNotCached() throws {
        let connection = try TestServer.connect()
        #expect(throws: PostgreSQLError.self) { try connection.prepared("SELECT nope FROM nowhere") }
        #expect(connection.preparedStatementCount == 0)
        #expect(try connection.prepared("SELECT 2").int32(0, 0) == 2)
    }

    @Test func affectedRowsAndCommandTags() throws {
        let connection = try TestServer.connect()
        try connection.execute("CREATE TEMP TABLE counted (n int4)")
        let inserted = try connection.prepared(
            "INSERT INTO counted SELECT generate_series(1, $1)", [.int32(3)])
        #expect(inserted.affectedRows == 3)
        #expect(inserted.commandTag == "INSERT 0 3")
        let updated = try connection.prepared("UPDATE counted SET n = n + 1 WHERE n > $1", [.int32(1)])
        #expect(updated.affectedRows == 2)
        #expect(try connection.query("DELETE FROM counted").affectedRows == 3)
    }

    @Test func parametersShowTheirTypeNeverTheirValue() {
        let values: [PostgreSQLValue] = [.bytes(Array("canary-bytes".utf8)), .text("canary-text"), .int64(987_654_321)]
        let shown = values.map(\.description).joined(separator: " ")
        #expect(shown == "bytea(12 bytes) text(11 bytes) int8")
    }

    @Test func measuresAPreparedRoundTrip() throws {
        let connection = try TestServer.connect()
        let sql = "SELECT $1::bytea, $2::int8"
        let payload = [UInt8](repeating: 7, count: 700)
        _ = try connection.prepared(sql, [.bytes(payload), .int64(1)])
        let runs = 500
        let start = ContinuousClock.now
        var sum: Int64 = 0
        for run in 0..<runs {
            sum += try connection.prepared(sql, [.bytes(payload), .int64(Int64(run))]).int64(0, 1)
        }
        #expect(sum == Int64(runs * (runs - 1) / 2))
        print("prepared round trip (700-byte bytea + int8): \((ContinuousClock.now - start) / runs) average")
    }
}
