import Data
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import Testing

/// SQLSTATE mapping, and transactions and savepoints through `execute`.
@Suite struct PostgreSQLErrorTests {
    @Test func aUniqueViolationNamesItsConstraintButNotTheKey() throws {
        let connection = try TestServer.connect()
        try connection.execute("CREATE TEMP TABLE tokens (k bytea PRIMARY KEY)")
        let key = PostgreSQLValue.bytes(Array("canary-key-value".utf8))
        _ = try connection.prepared("INSERT INTO tokens VALUES ($1)", [key])
        let error = try #require(throws: PostgreSQLError.self) {
            try connection.prepared("INSERT INTO tokens VALUES ($1)", [key])
        }
        #expect(error.kind == .server)
        #expect(error.sqlState == "23505")
        #expect(error.isUniqueViolation && !error.isSerializationFailure && !error.isDeadlock && !error.isConnectionLost)
        #expect(error.constraint == "tokens_pkey")
        // The server's DETAIL quotes the key; it is not kept.
        #expect(!error.description.contains("canary"), "\(error)")
        #expect(!String(reflecting: error).contains("canary"))
        #expect(try connection.prepared("SELECT count(*) FROM tokens").int64(0, 0) == 1)
    }

    @Test func aSyntaxErrorIsItsSQLSTATEAndTheConnectionGoesOn() throws {
        let connection = try TestServer.connect()
        let error = try #require(throws: PostgreSQLError.self) { try connection.execute("SELEC 1") }
        #expect(error.kind == .server)
        #expect(error.sqlState == "42601")
        #expect(error.description.contains("syntax error") && error.description.contains("SELEC 1"), "\(error)")
        #expect(!error.isUniqueViolation && !error.isConnectionLost && !error.isTimeout)
        #expect(connection.isHealthy)
        #expect(try connection.query("SELECT 1").int32(0, 0) == 1)
    }

    @Test func aConcurrentUpdateIsASerializationFailure() throws {
        let first = try TestServer.connect()
        let second = try TestServer.connect()
        let table = "serial_\(UInt32.random(in: 0...UInt32.max))"
        try first.execute("CREATE TABLE \(table) (id int4 PRIMARY KEY, v int4); INSERT INTO \(table) VALUES (1, 0)")
        defer { try? second.execute("DROP TABLE \(table)") }
        try first.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        _ = try first.query("SELECT v FROM \(table) WHERE id = 1")
        _ = try second.query("UPDATE \(table) SET v = 1 WHERE id = 1")
        let error = try #require(throws: PostgreSQLError.self) {
            try first.query("UPDATE \(table) SET v = 2 WHERE id = 1")
        }
        #expect(error.sqlState == "40001")
        #expect(error.isSerializationFailure)
        #expect(first.transactionStatus == .inFailedTransaction)
        try first.execute("ROLLBACK")
    }

    @Test func classifiesByStateAndKind() {
        #expect(PostgreSQLError(.server, message: "", sqlState: "40P01").isDeadlock)
        #expect(PostgreSQLError(.server, message: "", sqlState: "08006").isConnectionLost)
        #expect(PostgreSQLError(.server, message: "", sqlState: "57014").isTimeout)
        #expect(!PostgreSQLError(.server, message: "", sqlState: "23503").isUniqueViolation)
        let long = PostgreSQLError(.server, message: "m", sql: String(repeating: "x", count: 200))
        #expect(long.sql?.count == 81)
    }

    @Test func transactionsAndSavepointsRoundTrip() throws {
        let connection = try TestServer.connect()
        try connection.execute("CREATE TEMP TABLE items (n int4 PRIMARY KEY)")
        try connection.execute("BEGIN")
        #expect(connection.transactionStatus == .inTransaction)
        _ = try connection.prepared("INSERT INTO items VALUES ($1)", [.int32(1)])
        try connection.execute("SAVEPOINT attempt")
        _ = try connection.prepared("INSERT INTO items VALUES ($1)", [.int32(2)])
        // A failure inside the savepoint fails the transaction until rolled back to it.
        #expect(throws: PostgreSQLError.self) {
            try connection.prepared("INSERT INTO items VALUES ($1)", [.int32(1)])
        }
        #expect(connection.transactionStatus == .inFailedTransaction)
        let refused = try #require(throws: PostgreSQLError.self) { try connection.query("SELECT 1") }
        #expect(refused.sqlState == "25P02")
        try connection.execute("ROLLBACK TO SAVEPOINT attempt")
        #expect(connection.transactionStatus == .inTransaction)
        _ = try connection.prepared("INSERT INTO items VALUES ($1)", [.int32(3)])
        try connection.execute("RELEASE SAVEPOINT attempt")
        try connection.execute("COMMIT")
        #expect(connection.transactionStatus == .idle)
        let rows = try connection.query("SELECT n FROM items ORDER BY n")
        #expect(try (0..<rows.rowCount).map { try rows.int32($0, 0) } == [1, 3])

        try connection.execute("BEGIN")
        _ = try connection.prepared("INSERT INTO items VALUES ($1)", [.int32(4)])
        try connection.execute("ROLLBACK")
        #expect(try connection.query("SELECT count(*) FROM items").int64(0, 0) == 2)
    }
}

/// The oldest server the store runs on, checked when a store is opened, and a dropped table told from
/// other refusals.
@Suite struct PostgreSQLServerSupportTests {
    @Test func aServerOlderThanThirteenIsRefusedByName() throws {
        for (version, shown) in [(90_624, "9.6"), (120_005, "12")] {
            let error = #expect(throws: SecureStoreError.self) {
                try PostgreSQLStoreOpener.requireSupportedServer(version: version)
            }
            guard case .storage(let failure)? = error else {
                Issue.record("\(version): \(String(describing: error))")
                continue
            }
            #expect(failure.kind == .unsupportedServer)
            #expect(failure.description.contains("version \(shown);") && failure.description.contains("13 or later"))
        }
        for version in [130_000, 150_004, 170_000] {
            #expect(throws: Never.self) { try PostgreSQLStoreOpener.requireSupportedServer(version: version) }
        }
        let server = try TestServer.connect().serverVersion
        #expect(throws: Never.self) { try PostgreSQLStoreOpener.requireSupportedServer(version: server) }
    }

    @Test func onlyAMissingTableOrColumnIsDamage() throws {
        let connection = try TestServer.connect()
        for (sql, missing) in [
            ("SELECT * FROM no_such_table_here", true), ("SELECT no_such_column FROM pg_class", true),
            ("SELECT no_such_function_here()", false), ("SELEC 1", false),
        ] {
            let error = try #require(throws: PostgreSQLError.self) { try connection.execute(sql) }
            #expect(error.isMissingObject == missing, "\(sql): \(error)")
        }
    }
}
