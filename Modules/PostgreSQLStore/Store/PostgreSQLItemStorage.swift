import Data
import Foundation
import StoreCore

/// The store's rows in PostgreSQL, through one connection: `\(schema).items`, the rows digest row and
/// the header row. Writers serialize on the digest row (`SELECT … FOR UPDATE`); reads that need one
/// snapshot run in a repeatable-read, read-only transaction; everything else runs on its own.
///
/// Not `Sendable`: it belongs to one ``StoreEngine``, which uses it from one thread at a time.
final class PostgreSQLItemStorage: ItemStorage {
    /// The connection; reopened by the next call after it was lost outside a transaction.
    let connection: PostgreSQLConnection
    /// The schema that holds the store's tables (checked to be a plain identifier).
    let schema: String
    /// The digest row's change counter as it stood when this handle last reported a change, and the
    /// value reported then: the counter the core sees moves only when another connection changed the
    /// rows, as SQLite's `data_version` does.
    ///
    /// The counter is kept with the digest row's `xmin` (the transaction that last wrote the row, which
    /// SQL cannot set): someone who sets the counter back after deleting a row still moves `xmin`.
    private var knownVersion: RowState?
    private var reportedCounter: Int64 = 0
    /// The digest row as the open transaction read it when it began (under its lock, for a write).
    private var snapshot: (version: Int64, value: [UInt8], xmin: String)?
    /// The open write transaction's own transaction id (32 bits, as `xmin` shows it).
    private var ownTransaction: String?

    /// The digest row's counter and the transaction that last wrote it.
    private struct RowState: Equatable {
        let version: Int64
        let xmin: String
    }
    /// Whether the open transaction is a write.
    private var writing = false
    /// The rows digest the open write transaction will store when it commits.
    private var pendingDigest: [UInt8]?
    /// How many statements that change `items` the open write transaction ran: the trigger bumps the
    /// counter once for each, and no one else can while this transaction holds the digest row's lock.
    private var itemStatements: Int64 = 0
    /// ``itemStatements`` at each open savepoint, innermost last.
    private var savepointStatements: [Int64] = []
    /// Whether a transaction is open here (the connection cannot say once it is lost): a statement run
    /// inside one is never sent again on a new connection. The opener sets it around its own.
    var transactionOpen = false

    /// Storage over an open connection to a store whose tables exist.
    init(connection: PostgreSQLConnection, schema: String) {
        self.connection = connection
        self.schema = schema
    }

    // MARK: Calls

    /// Runs a prepared statement, translating failures. Outside a transaction the statement is a read
    /// (every write runs in one), so when the connection turns out to be lost (a server restart, an
    /// idle connection cut) it is reopened and the statement sent once more.
    @discardableResult
    func run(_ sql: String, _ parameters: [PostgreSQLValue] = []) throws(SecureStoreError) -> PostgreSQLResult {
        try reconnectIfIdleAndLost()
        do {
            return try connection.prepared(sql, parameters)
        } catch where error.isConnectionLost && !transactionOpen {
            try reconnect()
            do {
                return try connection.prepared(sql, parameters)
            } catch {
                throw PostgreSQLFailure.storeError(error)
            }
        } catch {
            throw PostgreSQLFailure.storeError(error)
        }
    }

    /// Runs a transaction-control statement; `BEGIN` on a connection found lost is sent again on a new
    /// one (nothing was under way).
    private func execute(_ sql: String, retryOnLostConnection: Bool = false) throws(SecureStoreError) {
        do {
            try connection.execute(sql)
        } catch where error.isConnectionLost && retryOnLostConnection {
            try reconnect()
            do {
                try connection.execute(sql)
            } catch {
                throw PostgreSQLFailure.storeError(error)
            }
        } catch {
            throw PostgreSQLFailure.storeError(error)
        }
    }

    private func reconnectIfIdleAndLost() throws(SecureStoreError) {
        guard !connection.isHealthy, !transactionOpen else { return }
        try reconnect()
    }

    private func reconnect() throws(SecureStoreError) {
        do {
            try connection.reconnect()
            try PostgreSQLStoreOpener.configureSession(connection)
        } catch {
            throw PostgreSQLFailure.storeError(error)
        }
    }

    /// A cell read as a value of the type the tables declare.
    func read<Value>(_ body: () throws(PostgreSQLError) -> Value) throws(SecureStoreError) -> Value {
        do {
            return try body()
        } catch {
            throw PostgreSQLFailure.storeError(error)
        }
    }

    // MARK: Transactions

    /// Whether a transaction is open and usable: one that failed (the server refuses every statement
    /// until it is rolled back) counts as not open, as SQLite's rolled-back transaction does.
    var isInTransaction: Bool {
        switch connection.transactionStatus {
        case .inTransaction, .active: true
        default: false
        }
    }

    /// Begins a transaction and reads the digest row in the same round trip (under its lock for a write,
    /// which serializes writers as `BEGIN IMMEDIATE` does in SQLite).
    private func begin(_ begin: String, locking: Bool) throws(SecureStoreError) {
        try reconnectIfIdleAndLost()
        // A write also learns its own transaction id: the digest row it writes will carry it as `xmin`.
        let own = locking ? "(pg_current_xact_id()::text::bigint % 4294967296)::text" : "NULL::text"
        let sql =
            "\(begin); SELECT version, value, xmin::text, \(own) FROM \(schema).rows_digest WHERE id = 1"
            + (locking ? " FOR UPDATE" : "")
        var result: PostgreSQLResult
        do {
            result = try connection.simpleQuery(sql)
        } catch where error.isConnectionLost {
            // Nothing was under way: send it again on a new connection.
            try reconnect()
            do { result = try connection.simpleQuery(sql) } catch { throw PostgreSQLFailure.storeError(error) }
        } catch {
            rollback()
            throw PostgreSQLFailure.storeError(error)
        }
        transactionOpen = true
        writing = locking
        itemStatements = 0
        savepointStatements = []
        pendingDigest = nil
        do throws(SecureStoreError) {
            guard result.rowCount == 1 else { throw SecureStoreError.integrityFailure("the rows digest is missing") }
            let (versionText, valueText, xmin) = try read { () throws(PostgreSQLError) in
                (try result.serverText(0, 0), try result.serverText(0, 1), try result.serverText(0, 2))
            }
            guard let version = Int64(versionText), let value = Self.bytea(valueText) else {
                throw SecureStoreError.integrityFailure("the rows digest is malformed")
            }
            snapshot = (version, value, xmin)
            ownTransaction = locking ? try read { () throws(PostgreSQLError) in try result.serverText(0, 3) } : nil
        } catch {
            rollback()
            throw error
        }
    }

    /// `bytes` as lowercase hex digits (without Foundation's `String(format:)`, which cost a write
    /// several microseconds per byte in dynamic casts).
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of `bytea` in the server's hex text form (`\x0a1b…`).
    private static func bytea(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count >= 2, digits[0] == UInt8(ascii: "\\"), digits[1] == UInt8(ascii: "x"), digits.count % 2 == 0
        else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((digits.count - 2) / 2)
        func nibble(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var index = 2
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    func beginWrite() throws(SecureStoreError) { try begin("BEGIN", locking: true) }

    func beginRead() throws(SecureStoreError) {
        try begin("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", locking: false)
    }

    /// Commits, storing the rows digest in the same round trip (it is a keyed hash of index cells,
    /// not a secret, so it may travel as a literal).
    func commit() throws(SecureStoreError) {
        let start = snapshot.map { RowState(version: $0.version, xmin: $0.xmin) }
        let statements = itemStatements
        let own = ownTransaction
        let digestWritten = writing && pendingDigest != nil
        var sql = "COMMIT"
        if writing, let pendingDigest {
            let hex = Self.hex(pendingDigest)
            sql = "UPDATE \(schema).rows_digest SET value = '\\x\(hex)'::bytea WHERE id = 1; COMMIT"
        }
        defer { endTransaction() }
        do {
            try connection.execute(sql)
        } catch {
            // A COMMIT whose answer was lost may or may not have taken effect; one the server refused
            // (a statement error, a cancel) certainly did not.
            if error.isConnectionLost || error.kind == .timedOutConnectionClosed {
                throw .storage(
                    StorageFailure(
                        backend: "PostgreSQL", kind: .connectionLost,
                        message: "the connection was lost while committing, so the write may or may not have been saved; "
                            + "read the item to find out",
                        detail: error.sqlState.map { "SQLSTATE \($0)" }))
            }
            throw PostgreSQLFailure.storeError(error)
        }
        // Only this handle changed the rows since the core last looked: the counter it sees stays.
        if writing, let start, start == knownVersion {
            // Only this handle wrote the row since: its counter moved by this transaction's statements,
            // and its `xmin` is this transaction's id if it wrote the row at all.
            let wroteRow = statements > 0 || digestWritten
            knownVersion = RowState(
                version: start.version + statements, xmin: wroteRow ? (own ?? start.xmin) : start.xmin)
        }
    }

    private func endTransaction() {
        snapshot = nil
        ownTransaction = nil
        writing = false
        pendingDigest = nil
        itemStatements = 0
        savepointStatements = []
        transactionOpen = false
    }

    func rollback() {
        defer { endTransaction() }
        guard connection.transactionStatus != .idle, connection.isHealthy else { return }
        try? connection.execute("ROLLBACK")
    }

    func savepoint(_ name: String) throws(SecureStoreError) {
        try execute("SAVEPOINT \(name)")
        savepointStatements.append(itemStatements)
    }

    func releaseSavepoint(_ name: String) throws(SecureStoreError) {
        try execute("RELEASE SAVEPOINT \(name)")
        _ = savepointStatements.popLast()
    }

    func rollbackToSavepoint(_ name: String) {
        try? connection.execute("ROLLBACK TO SAVEPOINT \(name); RELEASE SAVEPOINT \(name)")
        if let statements = savepointStatements.popLast() { itemStatements = statements }
    }

    func changeCounter() throws(SecureStoreError) -> Int64 {
        let state: RowState
        if let snapshot {
            state = RowState(version: snapshot.version, xmin: snapshot.xmin)
        } else {
            let result = try run("SELECT version, xmin::text FROM \(schema).rows_digest WHERE id = 1")
            guard result.rowCount == 1 else { throw .integrityFailure("the rows digest is missing") }
            state = try read { () throws(PostgreSQLError) in
                RowState(version: try result.int64(0, 0), xmin: try result.string(0, 1))
            }
        }
        if state != knownVersion {
            knownVersion = state
            reportedCounter &+= 1
        }
        return reportedCounter
    }

    /// Runs a statement that changes `items`, counting it for the change counter once it succeeded.
    @discardableResult
    func change(_ sql: String, _ parameters: [PostgreSQLValue]) throws(SecureStoreError) -> PostgreSQLResult {
        let result = try run(sql, parameters)
        itemStatements += 1
        return result
    }

    /// The server's clock (`clock_timestamp()`, which moves within a transaction), so that every
    /// instance sharing the store judges leases by one clock.
    func sharedClock() throws(SecureStoreError) -> Date? {
        let result = try run("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::int8")
        let milliseconds = try read { () throws(PostgreSQLError) in try result.int64(0, 0) }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// The change counter the open write transaction read under its lock.
    var writeStartVersion: Int64? { writing ? snapshot?.version : nil }

    // MARK: The digest row inside a transaction

    func loadRowsDigest() throws(SecureStoreError) -> [UInt8]? {
        if let snapshot { return pendingDigest ?? snapshot.value }
        let result = try run("SELECT value FROM \(schema).rows_digest WHERE id = 1")
        guard result.rowCount == 1 else { return [] }
        return try read { () throws(PostgreSQLError) in try result.bytes(0, 0) }
    }

    func storeRowsDigest(_ encoded: [UInt8]) throws(SecureStoreError) {
        // Inside a write transaction, sent with its COMMIT.
        if writing {
            pendingDigest = encoded
            return
        }
        try run("UPDATE \(schema).rows_digest SET value = $1 WHERE id = 1", [.bytes(encoded)])
    }
}
