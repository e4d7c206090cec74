internal import CLibPQ
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opens a libpq connection without blocking past a deadline (`PQconnectStartParams`,
/// `PQconnectPoll`), with this layer's TCP settings unless the URI sets its own.
///
/// One wait is not bounded by the deadline: libpq resolves a host name with a blocking
/// `getaddrinfo`. A location that names an IP address (or a socket directory) is bounded throughout.
struct PostgreSQLConnector {
    let location: PostgreSQLLocation
    let options: PostgreSQLConnectionOptions

    /// A connected handle in non-blocking mode, with notices silenced.
    func connect() throws(PostgreSQLError) -> OpaquePointer {
        let deadline = ContinuousClock.now + options.connectTimeout
        let environment = ProcessInfo.processInfo.environment
        let sslMode = PostgreSQLTLSDefault.sslMode(for: location, environment: environment)
        // Settings before `dbname`: libpq lets the URI (expanded from `dbname`) override them. The TLS
        // mode is set only when neither the URI nor the environment names one; libpq reads every other
        // TLS setting (sslrootcert, sslcert, sslkey, sslcrl, sslsni, …) from them itself.
        let settings: [(String, String)] = (sslMode.map { [("sslmode", $0)] } ?? []) + [
            ("connect_timeout", String(max(2, options.connectTimeout.wholeSeconds))),
            ("keepalives", "1"),
            ("keepalives_idle", String(max(1, options.keepaliveIdle.wholeSeconds))),
            ("keepalives_interval", String(max(1, options.keepaliveInterval.wholeSeconds))),
            ("keepalives_count", String(options.keepaliveCount)),
            ("tcp_user_timeout", String(options.tcpUserTimeout.wholeMilliseconds)),
            ("fallback_application_name", options.applicationName),
            ("dbname", location.conninfo),
        ]
        let connection = Self.withCStrings(settings.map(\.0)) { keywords in
            Self.withCStrings(settings.map(\.1)) { values in PQconnectStartParams(keywords, values, 1) }
        }
        guard let connection else {
            throw PostgreSQLError(.connectionFailed, message: "out of memory")
        }
        // Verbose while connecting, so that a refusal carries the server's SQLSTATE whatever its language
        // ([`PostgreSQLVerboseMessage`]); the default again once connected (a connected handle's server errors
        // are read from their fields, and libpq's own message, where one is used, stays as it was).
        PQsetErrorVerbosity(connection, PQERRORS_VERBOSE)
        let failure = { (connection: OpaquePointer) in
            self.failure(connection, modeIsDefault: sslMode != nil, environment: environment)
        }
        guard PQstatus(connection) != CONNECTION_BAD else { throw failure(connection) }
        var state = PGRES_POLLING_WRITING
        while state != PGRES_POLLING_OK {
            guard state != PGRES_POLLING_FAILED else { throw failure(connection) }
            let socket = PQsocket(connection)
            if socket >= 0,
                !PostgreSQLSocketWait.wait(socket, writing: state == PGRES_POLLING_WRITING, until: deadline)
            {
                PQfinish(connection)
                throw PostgreSQLError(
                    .connectionFailed,
                    message: "no answer from \(location.redacted) within \(options.connectTimeout)")
            }
            state = PQconnectPoll(connection)
        }
        PQsetErrorVerbosity(connection, PQERRORS_DEFAULT)
        // Notices (a COMMIT outside a transaction, …) would go to stderr by default.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        guard PQsetnonblocking(connection, 1) == 0 else { throw failure(connection) }
        return connection
    }

    /// Closes `connection` and describes why it failed, scrubbed of the password: a failed TLS check by
    /// its cause, anything else in libpq's words, with the server's SQLSTATE when it refused.
    private func failure(_ connection: OpaquePointer, modeIsDefault: Bool, environment: [String: String])
        -> PostgreSQLError
    {
        let (sqlState, said) = PostgreSQLVerboseMessage.read(String(cString: PQerrorMessage(connection)))
        PQfinish(connection)
        let message = location.scrub(PostgreSQLConnector.tidy(said))
        if let cause = PostgreSQLTLSFailure.cause(of: message) {
            let roots = location.connectionSettings["sslrootcert"].flatMap { $0.isEmpty ? nil : $0 }
                ?? environment["PGSSLROOTCERT"].flatMap { $0.isEmpty ? nil : $0 } ?? "~/.postgresql/root.crt"
            let tls = PostgreSQLTLSFailure(cause: cause, modeIsDefault: modeIsDefault, rootCertificates: roots)
            return PostgreSQLError(.tlsCheckFailed, message: message, tlsFailure: tls)
        }
        return PostgreSQLError(
            .connectionFailed, message: message.isEmpty ? "connection failed" : message, sqlState: sqlState)
    }

    /// libpq's multi-line message on one line, each line once (libpq repeats the server's refusal when it
    /// tried again without TLS, as `sslmode=prefer` does).
    static func tidy(_ message: String) -> String {
        var seen = Set<String>()
        return message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && seen.insert($0).inserted }.joined(separator: "; ")
    }

    /// Calls `body` with a NULL-terminated array of C strings, wiped and freed afterwards (one of them
    /// is the URI, which may hold the password).
    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer {
            for copy in copies {
                guard let copy else { continue }
                memset(copy, 0, strlen(copy))
                free(copy)
            }
        }
        return body(copies.map { $0.map { UnsafePointer($0) } } + [nil])
    }
}
