internal import CLibPQ

/// How one call runs: send, flush, wait on the socket against the deadline, collect every result
/// until libpq has no more; past the deadline, cancel and drain within the grace, or close.
extension PostgreSQLConnection {
    /// What collecting results came to.
    private enum Collected {
        /// libpq has no more results: the last successful one, or the first error.
        case finished(Result<OpaquePointer?, PostgreSQLError>)
        /// The deadline passed before libpq had every result.
        case deadlinePassed
    }

    /// Sends a command with `send` and returns its last result.
    /// - Throws: `PostgreSQLError`: the server's first error, a lost connection, or a timeout.
    func perform(_ sql: String, deadline: ContinuousClock.Instant, send: (OpaquePointer) -> Int32)
        throws(PostgreSQLError) -> OpaquePointer
    {
        guard let connection = handle else {
            throw PostgreSQLError(.connectionLost, message: "the connection is closed; reconnect first", sql: sql)
        }
        guard PQstatus(connection) == CONNECTION_OK, send(connection) == 1 else {
            throw clientError(connection, sql: sql)
        }
        let result: Result<OpaquePointer?, PostgreSQLError>
        switch collect(connection, sql: sql, until: deadline) {
        case .finished(let finished): result = finished
        case .deadlinePassed: result = .success(try cancel(connection, sql: sql))
        }
        switch result {
        case .success(let raw?): return raw
        case .success(nil):
            throw PostgreSQLError(.unexpected, message: "the server sent no result", sql: sql)
        case .failure(let error): throw error
        }
    }

    /// After the deadline: asks the server to cancel the query and waits for its end within the grace;
    /// failing that, closes the connection. Returns the result when the query finished after all.
    private func cancel(_ connection: OpaquePointer, sql: String) throws(PostgreSQLError) -> OpaquePointer? {
        let timeout = "the call did not finish within its timeout"
        let grace = ContinuousClock.now + options.cancelGrace
        let refused: String?
        if let request = PostgreSQLCancelRequest(for: connection) {
            refused = request.send(waitingUntil: grace)
        } else {
            refused = "no cancel request could be made"
        }
        switch collect(connection, sql: sql, until: grace) {
        case .finished(.success(let raw)):
            // It finished before the cancel reached it: the work was done, so say so.
            return raw
        case .finished(.failure(let error)) where error.sqlState == "57014":
            throw PostgreSQLError(.timedOut, message: "\(timeout); it was cancelled", sqlState: "57014", sql: sql)
        case .finished(.failure(let error)):
            // It failed on its own (or the connection broke) before the cancel took effect.
            throw error
        case .deadlinePassed:
            close()
            let why = location.scrub(refused.map { " (\($0))" } ?? "")
            throw PostgreSQLError(
                .timedOutConnectionClosed, message: "\(timeout), nor after a cancel\(why); the connection was closed",
                sql: sql)
        }
    }

    /// Flushes what is unsent and gathers results until libpq has no more, or the deadline passes.
    private func collect(_ connection: OpaquePointer, sql: String, until deadline: ContinuousClock.Instant)
        -> Collected
    {
        var last: OpaquePointer?
        var firstError: PostgreSQLError?
        while true {
            // Unsent data first (non-blocking mode): the server may be waiting for the rest.
            var flushing = PQflush(connection)
            while flushing == 1 {
                guard PostgreSQLSocketWait.wait(PQsocket(connection), writing: true, until: deadline) else {
                    if let last { PQclear(last) }
                    return .deadlinePassed
                }
                guard PQconsumeInput(connection) == 1 || PQstatus(connection) == CONNECTION_BAD else {
                    return readFailed(connection, last, sql: sql)
                }
                flushing = PQflush(connection)
            }
            while PQisBusy(connection) == 1 {
                guard PostgreSQLSocketWait.wait(PQsocket(connection), writing: false, until: deadline) else {
                    if let last { PQclear(last) }
                    return .deadlinePassed
                }
                // A failure drops the connection; PQisBusy is then false and PQgetResult reports it.
                guard PQconsumeInput(connection) == 1 || PQstatus(connection) == CONNECTION_BAD else {
                    return readFailed(connection, last, sql: sql)
                }
            }
            guard let result = PQgetResult(connection) else { break }
            switch PQresultStatus(result) {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                if let last { PQclear(last) }
                last = result
            case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
                // COPY needs a protocol of its own; the only safe way out is to drop the session.
                PQclear(result)
                if let last { PQclear(last) }
                close()
                return .finished(
                    .failure(PostgreSQLError(.unexpected, message: "COPY is not supported; the connection was closed", sql: sql)))
            default:
                if firstError == nil { firstError = serverError(result, connection: connection, sql: sql) }
                PQclear(result)
            }
            if PQstatus(connection) == CONNECTION_BAD { break }
        }
        if PQstatus(connection) == CONNECTION_BAD {
            if let last { PQclear(last) }
            let error = firstError ?? clientError(connection, sql: sql)
            return .finished(
                .failure(PostgreSQLError(
                    .connectionLost, message: error.message, sqlState: error.sqlState, sql: sql)))
        }
        if let firstError {
            if let last { PQclear(last) }
            return .finished(.failure(firstError))
        }
        return .finished(.success(last))
    }

    /// A read that failed on a connection libpq still counts as good: PQgetResult would then block
    /// with no deadline, so the connection is closed instead.
    private func readFailed(_ connection: OpaquePointer, _ last: OpaquePointer?, sql: String) -> Collected {
        if let last { PQclear(last) }
        let error = clientError(connection, sql: sql)
        close()
        return .finished(.failure(PostgreSQLError(.connectionLost, message: error.message + "; the connection was closed", sql: sql)))
    }

    /// The error a failed result carries: SQLSTATE, primary message and constraint, never DETAIL.
    private func serverError(_ result: OpaquePointer, connection: OpaquePointer, sql: String) -> PostgreSQLError {
        func field(_ code: Character) -> String? {
            PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
        }
        guard let sqlState = field("C") else {
            // Made by libpq itself (a lost connection): its message is the whole story.
            let message = PostgreSQLConnector.tidy(String(cString: PQresultErrorMessage(result)))
            let kind: PostgreSQLError.Kind = PQstatus(connection) == CONNECTION_BAD ? .connectionLost : .unexpected
            return PostgreSQLError(kind, message: location.scrub(message), sql: sql)
        }
        let message = location.scrub(field("M") ?? "")
        return PostgreSQLError(.server, message: message, sqlState: sqlState, constraint: field("n"), sql: sql)
    }

    /// The connection's own error (a send that failed, a broken connection), scrubbed.
    private func clientError(_ connection: OpaquePointer, sql: String) -> PostgreSQLError {
        var message = location.scrub(PostgreSQLConnector.tidy(String(cString: PQerrorMessage(connection))))
        if PQstatus(connection) == CONNECTION_BAD {
            if message.isEmpty { message = "the connection is broken" }
            return PostgreSQLError(.connectionLost, message: message + "; reconnect first", sql: sql)
        }
        return PostgreSQLError(.unexpected, message: message.isEmpty ? "libpq refused the call" : message, sql: sql)
    }
}
