internal import CLibPQ

/// Several statements in one round trip through libpq's pipeline mode (libpq 14 and later): each a
/// prepared statement of this session (prepared in the same round trip on first use), all sent before
/// one sync, their results read back in order.
extension PostgreSQLConnection {
    /// One statement of a pipeline: SQL with `$1`, `$2`, … and its binary parameters.
    @_spi(HardtackTools) public struct PipelinedStatement {
        /// The SQL, one statement.
        @_spi(HardtackTools) public let sql: String
        /// Its parameters.
        @_spi(HardtackTools) public let parameters: [PostgreSQLValue]

        /// A statement with parameters.
        @_spi(HardtackTools) public init(_ sql: String, _ parameters: [PostgreSQLValue] = []) {
            self.sql = sql
            self.parameters = parameters
        }
    }

    /// Whether the connection still looks open once whatever the server sent while it was idle is read
    /// (a server that restarted, or dropped the connection, has closed the socket by then), without a
    /// round trip.
    @_spi(HardtackTools) public func probe() -> Bool {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { return false }
        if PostgreSQLSocketWait.isReadable(PQsocket(handle)), PQconsumeInput(handle) == 0 { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Runs `batch` in one round trip and returns each one's result, in order.
    ///
    /// The server runs them one after the other; the first that fails skips every later one (their
    /// writes never happen), and its error is thrown. Inside a transaction (a `BEGIN` among them or
    /// before), a failure leaves it failed, to be rolled back. A statement that needs no answer still
    /// waits for none: the round trip ends at the sync, after the last.
    /// - Throws: `PostgreSQLError`: the first failing statement's error, a lost connection (the
    ///   outcome of what was sent is then unknown), or a timeout, after which the connection is closed
    ///   (a pipeline is not cancelled: its outcome is unknown too).
    @_spi(HardtackTools) public func pipeline(
        _ batch: [PipelinedStatement], timeout: Duration? = nil
    ) throws(PostgreSQLError)
        -> [PostgreSQLResult]
    {
        let sql = batch.last?.sql ?? ""
        guard let connection = handle else {
            throw PostgreSQLError(.connectionLost, message: "the connection is closed; reconnect first", sql: sql)
        }
        let deadline = ContinuousClock.now + (timeout ?? options.callTimeout)
        guard PQstatus(connection) == CONNECTION_OK, PQenterPipelineMode(connection) == 1 else {
            throw pipelineFailure(connection, sql: sql)
        }
        // Statements prepared in this pipeline; cached only once it went through.
        var preparing: [(PreparedKey, String)] = []
        var expected = 0
        for statement in batch {
            var encoded = PostgreSQLParameters(statement.parameters)
            let types = encoded.types
            let key = PreparedKey(sql: statement.sql, types: types)
            let name: String
            if let cached = statements[key] ?? preparing.first(where: { $0.0 == key })?.1 {
                name = cached
            } else {
                name = nextStatementName()
                preparing.append((key, name))
                guard PQsendPrepare(connection, name, statement.sql, Int32(types.count), types) == 1 else {
                    throw abandonPipeline(connection, sql: statement.sql)
                }
                expected += 1
            }
            let sent = encoded.withCArrays { values, lengths, formats in
                PQsendQueryPrepared(connection, name, Int32(types.count), values, lengths, formats, 1)
            }
            guard sent == 1 else { throw abandonPipeline(connection, sql: statement.sql) }
            expected += 1
        }
        guard PQpipelineSync(connection) == 1 else { throw abandonPipeline(connection, sql: sql) }
        let raw: [OpaquePointer]
        do {
            raw = try collectPipeline(connection, count: expected, sql: sql, until: deadline)
        } catch {
            if handle != nil { _ = PQexitPipelineMode(connection) }
            throw error
        }
        _ = PQexitPipelineMode(connection)
        for (key, name) in preparing { statements[key] = name }
        // Each prepare answered too: keep the statements' own results.
        var results: [PostgreSQLResult] = []
        var index = 0
        for statement in batch {
            let key = PreparedKey(sql: statement.sql, types: statement.parameters.map(\.typeOID))
            if let position = preparing.firstIndex(where: { $0.0 == key }) {
                preparing.remove(at: position)
                PQclear(raw[index])
                index += 1
            }
            results.append(PostgreSQLResult(raw[index], sql: statement.sql))
            index += 1
        }
        return results
    }

    /// Reads `count` results and the sync; the first error (later statements were skipped) is thrown.
    private func collectPipeline(
        _ connection: OpaquePointer, count: Int, sql: String, until deadline: ContinuousClock.Instant
    ) throws(PostgreSQLError) -> [OpaquePointer] {
        var results: [OpaquePointer] = []
        var firstError: PostgreSQLError?
        func discard() { for result in results { PQclear(result) } }
        while true {
            let next: OpaquePointer?
            do {
                next = try nextResult(connection, sql: sql, until: deadline)
            } catch {
                // Lost or timed out midway: the results already read are freed, not leaked.
                discard()
                throw error
            }
            guard let result = next else {
                // Between one statement's results and the next's.
                continue
            }
            let status = PQresultStatus(result)
            if status == PGRES_PIPELINE_SYNC {
                PQclear(result)
                break
            }
            switch status {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                results.append(result)
            case PGRES_PIPELINE_ABORTED:
                PQclear(result)
            default:
                if firstError == nil { firstError = pipelineServerError(result, connection: connection, sql: sql) }
                PQclear(result)
            }
        }
        if let firstError {
            discard()
            throw firstError
        }
        guard results.count == count else {
            discard()
            close()
            throw PostgreSQLError(
                .unexpected,
                message: "the pipeline answered \(results.count) of \(count) statements; the connection was closed",
                sql: sql)
        }
        return results
    }

    /// The next result (or `nil` between statements), waiting on the socket until the deadline.
    private func nextResult(
        _ connection: OpaquePointer, sql: String, until deadline: ContinuousClock.Instant
    )
        throws(PostgreSQLError) -> OpaquePointer?
    {
        var flushing = PQflush(connection)
        while flushing == 1 {
            guard PostgreSQLSocketWait.wait(PQsocket(connection), writing: true, until: deadline) else {
                throw timedOut(sql)
            }
            guard PQconsumeInput(connection) == 1 else { throw lost(connection, sql: sql) }
            flushing = PQflush(connection)
        }
        while PQisBusy(connection) == 1 {
            guard PostgreSQLSocketWait.wait(PQsocket(connection), writing: false, until: deadline) else {
                throw timedOut(sql)
            }
            guard PQconsumeInput(connection) == 1 else { throw lost(connection, sql: sql) }
        }
        if PQstatus(connection) == CONNECTION_BAD { throw lost(connection, sql: sql) }
        return PQgetResult(connection)
    }

    private func timedOut(_ sql: String) -> PostgreSQLError {
        close()
        return PostgreSQLError(
            .timedOutConnectionClosed,
            message: "the call did not finish within its timeout; the connection was closed", sql: sql)
    }

    private func lost(_ connection: OpaquePointer, sql: String) -> PostgreSQLError {
        let error = pipelineFailure(connection, sql: sql)
        close()
        return PostgreSQLError(.connectionLost, message: error.message + "; the connection was closed", sql: sql)
    }

    /// A send that failed midway: the pipeline's state is unknown, so the connection is closed.
    private func abandonPipeline(_ connection: OpaquePointer, sql: String) -> PostgreSQLError {
        let error = pipelineFailure(connection, sql: sql)
        close()
        return PostgreSQLError(.connectionLost, message: error.message + "; the connection was closed", sql: sql)
    }

    private func pipelineFailure(_ connection: OpaquePointer, sql: String) -> PostgreSQLError {
        var message = location.scrub(PostgreSQLConnector.tidy(String(cString: PQerrorMessage(connection))))
        if message.isEmpty { message = "libpq refused the pipeline" }
        let kind: PostgreSQLError.Kind = PQstatus(connection) == CONNECTION_BAD ? .connectionLost : .unexpected
        return PostgreSQLError(kind, message: message, sql: sql)
    }

    /// A failed statement's error: SQLSTATE, primary message and constraint, never DETAIL.
    private func pipelineServerError(_ result: OpaquePointer, connection: OpaquePointer, sql: String) -> PostgreSQLError
    {
        func field(_ code: Character) -> String? {
            PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
        }
        guard let sqlState = field("C") else {
            let message = location.scrub(PostgreSQLConnector.tidy(String(cString: PQresultErrorMessage(result))))
            let kind: PostgreSQLError.Kind = PQstatus(connection) == CONNECTION_BAD ? .connectionLost : .unexpected
            return PostgreSQLError(kind, message: message, sql: sql)
        }
        return PostgreSQLError(
            .server, message: location.scrub(field("M") ?? ""), sqlState: sqlState, constraint: field("n"), sql: sql)
    }
}
