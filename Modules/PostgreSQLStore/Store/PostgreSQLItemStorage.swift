import Data
import Foundation
import StoreCore

/// The store's rows in PostgreSQL, through one connection: `\(schema).items`, one rows digest row per
/// access group (`group_digests`), the registry of groups and the header row. Writers of a group
/// serialize on its digest row (`SELECT … FOR UPDATE`), so writers of different groups do not wait for
/// each other; reads that need one snapshot run in a repeatable-read, read-only transaction;
/// everything else runs on its own.
///
/// Not `Sendable`: it belongs to one ``StoreEngine``, which uses it from one thread at a time.
final class PostgreSQLItemStorage: ItemStorage {
    /// The connection; reopened by the next call after it was lost outside a transaction.
    let connection: PostgreSQLConnection
    /// The schema that holds the store's tables (checked to be a plain identifier).
    let schema: String
    /// For each group, its digest row's change counter and `xmin` as they stood when this handle last
    /// reported a change, and the counter reported then: the counter the core sees moves only when
    /// another connection changed the group's rows, as SQLite's `data_version` does.
    ///
    /// The counter is kept with the row's `xmin` (the transaction that last wrote it, which SQL cannot
    /// set): someone who sets the counter back after deleting a row still moves `xmin`.
    var knownStates: [BlindIndex: RowState] = [:]
    var reportedCounters: [BlindIndex: Int64] = [:]
    /// The digest rows the open transaction read (under their locks, for a write), as they were then.
    var transactionStates: [BlindIndex: RowState] = [:]
    /// The group digests the open write transaction will store when it commits.
    var pendingGroupDigests: [BlindIndex: [UInt8]] = [:]
    /// The open write transaction's own transaction id (32 bits, as `xmin` shows it).
    var ownTransaction: String?
    /// The version the open write transaction gives the rows it writes: a value of the store's
    /// sequence taken under its first lock (or with this handle's previous commit), never given
    /// before; also the id of its first new row.
    var writeVersion: Int64?
    /// Whether ``writeVersion`` already served as a new row's id.
    var writeVersionUsedAsID = false
    /// The `BEGIN` of a transaction not sent yet: it travels with the transaction's first statement.
    var pendingBegin: String?
    /// Writes of the open transaction whose answers the store does not need, not sent yet: they travel
    /// with the next statement, or with the `COMMIT` (see ``deferWrite(_:_:conditional:)``).
    var deferredWrites: [PostgreSQLConnection.PipelinedStatement] = []
    /// For each deferred write, its form that depends on an assumed lock (see ``deferWrite(_:_:conditional:)``).
    var deferredConditionals: [String?] = []
    /// Rows this handle's own commits left, by group (see ``cachedRow(_:)``).
    var rowCache: [BlindIndex: [RowKey: ItemRow]] = [:]
    /// The open transaction's changes to ``rowCache``, made when it commits.
    var pendingRowChanges: [(group: BlindIndex, key: RowKey, row: ItemRow?)] = []
    /// Whether the open transaction wrote a row it had not read (the cache is then dropped).
    var rowCacheInvalid = false
    /// The rows the open transaction read, by id.
    var transactionRows: [Int64: ItemRow] = [:]
    /// For each group this handle's own commit last wrote, the digest row's state and value then: while
    /// the row is still in that state, a write of its own may assume them (see ``speculation``).
    var ownDigests: [BlindIndex: (state: RowState, value: [UInt8])] = [:]
    /// A value of the store's sequence taken with the last commit, for the next write's version.
    var reservedVersion: Int64?
    /// The group whose digest row the open transaction assumed to be as this handle left it, not yet
    /// checked on the server: its lock travels with the transaction's first statement (or its commit).
    var speculation: (group: BlindIndex, state: RowState)?
    /// Whether the store's own operation (which the engine runs again at once) opened the transaction.
    var speculationAllowed = false
    /// Set when a transaction failed because an assumed digest row had changed.
    var speculationFailed = false

    /// A digest row's change counter and the transaction that last wrote it.
    struct RowState: Equatable {
        let version: Int64
        let xmin: String
    }
    /// Whether the open transaction is a write.
    var writing = false
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
        if speculation != nil, let result = try runWithAssumedLock(.init(sql, parameters)) { return result }
        try sendPendingBegin()
        if !deferredWrites.isEmpty {
            // The queued writes travel with the statement (inside the transaction: nothing is sent again).
            let batch = deferredWrites + [.init(sql, parameters)]
            deferredWrites = []
            deferredConditionals = []
            do {
                return try connection.pipeline(batch)[batch.count - 1]
            } catch {
                throw PostgreSQLFailure.storeError(error)
            }
        }
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
        try sendDeferredWrites()
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

    /// Reopens a connection found closed (its socket read without waiting) while no transaction is open.
    func reconnectIfIdleAndLost() throws(SecureStoreError) {
        guard !transactionOpen, !connection.probe() else { return }
        try reconnect()
    }

    func reconnect() throws(SecureStoreError) {
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
    /// until it is rolled back) counts as not open, as SQLite's rolled-back transaction does. One whose
    /// `BEGIN` waits to travel with its first statement is open.
    var isInTransaction: Bool {
        if pendingBegin != nil { return true }
        switch connection.transactionStatus {
        case .inTransaction, .active: return true
        default: return false
        }
    }

    /// Starts a transaction. Its `BEGIN` is sent with the first statement (a write's is the lock of the
    /// digest rows of the groups it touches), saving a round trip.
    private func begin(_ begin: String, writing: Bool, speculative: Bool = false) throws(SecureStoreError) {
        endTransaction()
        speculationAllowed = speculative
        speculationFailed = false
        try reconnectIfIdleAndLost()
        pendingBegin = begin
        self.writing = writing
    }

    /// Sends a `BEGIN` still waiting, on its own (a statement that cannot carry it).
    func sendPendingBegin() throws(SecureStoreError) {
        if speculation != nil { return try checkAssumedLock() }
        guard let begin = pendingBegin else { return }
        _ = try batch("SELECT 1", carryingBegin: begin)
    }

    /// Runs `sql` (text, several statements allowed, literals only) with a `BEGIN` still waiting in
    /// front of it, and returns the last result. With a `BEGIN`, nothing was under way yet, so a
    /// connection found lost is reopened and the whole sent again.
    func batch(_ sql: String, carryingBegin begin: String? = nil) throws(SecureStoreError) -> PostgreSQLResult {
        if speculation != nil { try checkAssumedLock() }
        let begin = begin ?? pendingBegin
        if begin == nil { try sendDeferredWrites() }
        let text = begin.map { "\($0); \(sql)" } ?? sql
        pendingBegin = nil
        // From here the server may have begun: a failure rolls back, and nothing is sent again alone.
        if begin != nil { transactionOpen = true }
        do {
            return try connection.simpleQuery(text)
        } catch where error.isConnectionLost && begin != nil {
            try reconnect()
            do { return try connection.simpleQuery(text) } catch { throw PostgreSQLFailure.storeError(error) }
        } catch {
            throw PostgreSQLFailure.storeError(error)
        }
    }

    func beginWrite() throws(SecureStoreError) { try begin("BEGIN", writing: true) }

    /// A write of the store's own, which the engine runs again at once if an assumed lock fails.
    func beginOwnWrite() throws(SecureStoreError) { try begin("BEGIN", writing: true, speculative: true) }

    func beginRead() throws(SecureStoreError) {
        try begin("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", writing: false)
    }

    func endTransaction() {
        deferredWrites = []
        deferredConditionals = []
        pendingRowChanges = []
        rowCacheInvalid = false
        transactionRows = [:]
        speculation = nil
        speculationAllowed = false
        transactionStates = [:]
        pendingGroupDigests = [:]
        ownTransaction = nil
        writeVersion = nil
        writeVersionUsedAsID = false
        writing = false
        pendingBegin = nil
        transactionOpen = false
    }

    func rollback() {
        if let speculation { ownDigests[speculation.group] = nil }
        let sent = pendingBegin == nil
        defer { endTransaction() }
        guard sent, connection.transactionStatus != .idle, connection.isHealthy else { return }
        try? connection.execute("ROLLBACK")
    }

    func savepoint(_ name: String) throws(SecureStoreError) {
        try sendPendingBegin()
        try execute("SAVEPOINT \(name)")
    }

    func releaseSavepoint(_ name: String) throws(SecureStoreError) {
        try execute("RELEASE SAVEPOINT \(name)")
    }

    func rollbackToSavepoint(_ name: String) {
        deferredConditionals = []
        rowCacheInvalid = true
        deferredWrites = []  // Made after the savepoint (every statement before it sent them): undone with it.
        try? connection.execute("ROLLBACK TO SAVEPOINT \(name); RELEASE SAVEPOINT \(name)")
    }

    /// The store as a whole has no counter: each group has one (``groupChangeCounter(_:)``).
    func changeCounter() throws(SecureStoreError) -> Int64 { 0 }

    /// Runs a statement that changes `items`.
    @discardableResult
    func change(_ sql: String, _ parameters: [PostgreSQLValue]) throws(SecureStoreError) -> PostgreSQLResult {
        try run(sql, parameters)
    }

    /// The server's clock (`clock_timestamp()`, which moves within a transaction), so that every
    /// instance sharing the store judges leases by one clock.
    func sharedClock() throws(SecureStoreError) -> Date? {
        let result = try run("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::int8")
        let milliseconds = try read { () throws(PostgreSQLError) in try result.int64(0, 0) }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
