internal import CLibPQ

/// One libpq connection to a PostgreSQL server, with its prepared statements.
///
/// Every call goes through libpq's asynchronous API and waits on the socket with `poll` against a
/// deadline, so no call outlives its timeout plus `options.cancelGrace`: past the timeout the query is
/// cancelled, and when even that does not end it in time the connection is closed (and the error says
/// which). Parameters and results travel in binary.
///
/// Not `Sendable`: libpq forbids using one `PGconn` from two threads at once, so a connection has one
/// owner at a time (the adapter's pool hands it out and takes it back). `deinit` closes it.
@_spi(HardtackTools) public final class PostgreSQLConnection {
    /// Where the connection goes.
    @_spi(HardtackTools) public let location: PostgreSQLLocation
    /// Its timeouts and TCP settings.
    @_spi(HardtackTools) public let options: PostgreSQLConnectionOptions
    /// The libpq handle, `nil` once closed after a timeout (until `reconnect()`).
    var handle: OpaquePointer?
    /// Prepared statements of this session by SQL and parameter types, with their names.
    var statements: [PreparedKey: String] = [:]
    private var statementCounter = 0

    /// What a prepared statement is cached under: its SQL and the types its parameters were declared as.
    struct PreparedKey: Hashable {
        let sql: String
        let types: [UInt32]
    }

    /// Connects to `location`, waiting at most `options.connectTimeout`.
    /// - Throws: `PostgreSQLError` of kind `connectionFailed` (never showing the password).
    @_spi(HardtackTools) public init(to location: PostgreSQLLocation, options: PostgreSQLConnectionOptions = .init()) throws(PostgreSQLError) {
        self.location = location
        self.options = options
        handle = try PostgreSQLConnector(location: location, options: options).connect()
    }

    /// Connects to the server named by `uri`.
    /// - Throws: `PostgreSQLError` of kind `invalidLocation` or `connectionFailed`.
    @_spi(HardtackTools) public convenience init(uri: String, options: PostgreSQLConnectionOptions = .init()) throws(PostgreSQLError) {
        try self.init(to: PostgreSQLLocation(uri), options: options)
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    /// Closes the connection (if open) and connects again; prepared statements are prepared again on
    /// their next use, and session state (advisory locks, settings) is gone.
    /// - Throws: `PostgreSQLError` of kind `connectionFailed`; the connection is then closed.
    @_spi(HardtackTools) public func reconnect() throws(PostgreSQLError) {
        close()
        handle = try PostgreSQLConnector(location: location, options: options).connect()
    }

    /// Closes the connection now; calls fail with `connectionLost` until `reconnect()`.
    @_spi(HardtackTools) public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        statements.removeAll()
    }

    /// Whether the connection is open and libpq has seen nothing wrong with it (`PQstatus`). A broken
    /// connection is only noticed when it is next used.
    @_spi(HardtackTools) public var isHealthy: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// The transaction status (`PQtransactionStatus`).
    @_spi(HardtackTools) public var transactionStatus: PostgreSQLTransactionStatus {
        guard let handle else { return .unknown }
        switch PQtransactionStatus(handle) {
        case PQTRANS_IDLE: return .idle
        case PQTRANS_ACTIVE: return .active
        case PQTRANS_INTRANS: return .inTransaction
        case PQTRANS_INERROR: return .inFailedTransaction
        default: return .unknown
        }
    }

    /// The process id of the server backend serving this connection (0 when closed).
    @_spi(HardtackTools) public var backendPID: Int32 { handle.map { PQbackendPID($0) } ?? 0 }

    /// The server's version as a number (150018 for 15.18; 0 when closed).
    @_spi(HardtackTools) public var serverVersion: Int { handle.map { Int(PQserverVersion($0)) } ?? 0 }

    /// How many prepared statements this session holds.
    @_spi(HardtackTools) public var preparedStatementCount: Int { statements.count }

    /// Runs SQL with no parameters through the simple query protocol (BEGIN, COMMIT, SAVEPOINT, SET,
    /// DDL; several statements separated by `;` run in one implicit transaction).
    /// - Throws: `PostgreSQLError`; the first failing statement's error.
    @_spi(HardtackTools) public func execute(_ sql: String, timeout: Duration? = nil) throws(PostgreSQLError) {
        _ = PostgreSQLResult(try perform(sql, timeout: timeout) { PQsendQuery($0, sql) }, sql: sql)
    }

    /// Runs SQL with no parameters through the simple query protocol, several statements in one round
    /// trip, and returns the last statement's result, in text format (read it with
    /// `PostgreSQLResult.serverText`).
    /// - Throws: `PostgreSQLError`; the first failing statement's error (the later ones do not run).
    @_spi(HardtackTools) public func simpleQuery(_ sql: String, timeout: Duration? = nil) throws(PostgreSQLError) -> PostgreSQLResult {
        PostgreSQLResult(try perform(sql, timeout: timeout) { PQsendQuery($0, sql) }, sql: sql)
    }

    /// Runs one statement with binary parameters (`$1`, `$2`, …) and binary results, without preparing
    /// it (for statements run once).
    /// - Throws: `PostgreSQLError`.
    @_spi(HardtackTools) public func query(_ sql: String, _ parameters: [PostgreSQLValue] = [], timeout: Duration? = nil)
        throws(PostgreSQLError) -> PostgreSQLResult
    {
        var encoded = PostgreSQLParameters(parameters)
        let types = encoded.types
        let raw = try perform(sql, timeout: timeout) { connection in
            encoded.withCArrays { values, lengths, formats in
                PQsendQueryParams(
                    connection, sql, Int32(types.count), types, values, lengths, formats, 1)
            }
        }
        return PostgreSQLResult(raw, sql: sql)
    }

    /// Runs one statement through a prepared statement of this session, preparing it on first use
    /// (and again after a reconnect). The statement is cached by its SQL and its parameters' types.
    /// - Throws: `PostgreSQLError`; a statement that fails to prepare is not cached.
    @_spi(HardtackTools) public func prepared(_ sql: String, _ parameters: [PostgreSQLValue] = [], timeout: Duration? = nil)
        throws(PostgreSQLError) -> PostgreSQLResult
    {
        var encoded = PostgreSQLParameters(parameters)
        let types = encoded.types
        let deadline = ContinuousClock.now + (timeout ?? options.callTimeout)
        let key = PreparedKey(sql: sql, types: types)
        let name: String
        if let cached = statements[key] {
            name = cached
        } else {
            name = nextStatementName()
            let prepared = try perform(sql, deadline: deadline) { connection in
                PQsendPrepare(connection, name, sql, Int32(types.count), types)
            }
            PQclear(prepared)
            statements[key] = name
        }
        let raw = try perform(sql, deadline: deadline) { connection in
            encoded.withCArrays { values, lengths, formats in
                PQsendQueryPrepared(connection, name, Int32(types.count), values, lengths, formats, 1)
            }
        }
        return PostgreSQLResult(raw, sql: sql)
    }

    /// A name no prepared statement of this session has had.
    func nextStatementName() -> String {
        statementCounter += 1
        return "hardtack_\(statementCounter)"
    }

    private func perform(_ sql: String, timeout: Duration?, send: (OpaquePointer) -> Int32)
        throws(PostgreSQLError) -> OpaquePointer
    {
        try perform(sql, deadline: ContinuousClock.now + (timeout ?? options.callTimeout), send: send)
    }
}
