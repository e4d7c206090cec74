/// A failure of the PostgreSQL connection layer: what went wrong, the server's SQLSTATE when it
/// answered, and words a person can act on.
///
/// It may name SQL, never a bound value, and never a password: messages that could echo the
/// location are scrubbed of its password before they get here ([`PostgreSQLLocation`]), and the
/// server's DETAIL field (which quotes key values, as in `Key (x)=(…) already exists`) is not kept.
/// The store adapter translates it into the store's own errors.
@_spi(HardtackTools) public struct PostgreSQLError: Error, Sendable, Equatable {
    /// What kind of failure it was.
    @_spi(HardtackTools) public enum Kind: Sendable, Equatable {
        /// The URI was not one libpq accepts, or not a `postgresql://` URI at all.
        case invalidLocation
        /// No connection could be made: refused, unreachable, authentication failed, or no answer in
        /// time.
        case connectionFailed
        /// No connection was made because the server failed libpq's TLS check (`sslmode` `require`,
        /// `verify-ca` or `verify-full`); ``PostgreSQLError/tlsFailure`` says why.
        case tlsCheckFailed
        /// The connection broke (before or during the call); nothing more can be sent on it until
        /// `reconnect()`. The outcome of a call that was under way is unknown.
        case connectionLost
        /// The server refused the statement; `sqlState` says why. The connection is still usable (in
        /// a transaction, the transaction is now failed and must be rolled back).
        case server
        /// The call passed its deadline and was cancelled; the connection is still usable (a
        /// transaction it was in is now failed and must be rolled back).
        case timedOut
        /// The call passed its deadline and the cancel did not end it in time either, so the
        /// connection was closed; `reconnect()` before using it again. The outcome is unknown.
        case timedOutConnectionClosed
        /// A result cell was read as a type it does not have, was NULL where a value was required, or
        /// the row or column does not exist.
        case wrongType
        /// libpq answered something this layer does not handle (COPY, an error with no SQLSTATE on a
        /// live connection).
        case unexpected
    }

    /// What kind of failure it was.
    @_spi(HardtackTools) public let kind: Kind
    /// The five-character SQLSTATE the server sent, if it sent one.
    @_spi(HardtackTools) public let sqlState: String?
    /// The server's primary message, or the client-side failure in words.
    @_spi(HardtackTools) public let message: String
    /// The constraint the server named (a unique violation's index), if any.
    @_spi(HardtackTools) public let constraint: String?
    /// The SQL of the call, shortened, or `nil` when there was none.
    @_spi(HardtackTools) public let sql: String?
    /// Why the server failed the TLS check, for ``Kind/tlsCheckFailed``.
    @_spi(HardtackTools) public let tlsFailure: PostgreSQLTLSFailure?

    /// Makes an error; `sql` is shortened to its first 80 characters.
    @_spi(HardtackTools) public init(
        _ kind: Kind, message: String, sqlState: String? = nil, constraint: String? = nil, sql: String? = nil,
        tlsFailure: PostgreSQLTLSFailure? = nil
    ) {
        self.kind = kind
        self.tlsFailure = tlsFailure
        self.message = message
        self.sqlState = sqlState
        self.constraint = constraint
        self.sql = sql.map { $0.count > 80 ? String($0.prefix(80)) + "…" : $0 }
    }

    /// The transaction could not be serialized with a concurrent one (40001): retry it.
    @_spi(HardtackTools) public var isSerializationFailure: Bool { sqlState == "40001" }
    /// The transaction was chosen as a deadlock victim (40P01): retry it.
    @_spi(HardtackTools) public var isDeadlock: Bool { sqlState == "40P01" }
    /// A unique constraint refused a duplicate key (23505).
    @_spi(HardtackTools) public var isUniqueViolation: Bool { sqlState == "23505" }
    /// Whether the statement named a table or column that does not exist (42P01, 42703).
    @_spi(HardtackTools) public var isMissingObject: Bool { sqlState == "42P01" || sqlState == "42703" }
    /// A query was cancelled by the server's own timeouts (57014 after `statement_timeout`, 55P03 after
    /// `lock_timeout`) or by this layer's call deadline.
    @_spi(HardtackTools) public var isTimeout: Bool {
        kind == .timedOut || kind == .timedOutConnectionClosed || sqlState == "57014" || sqlState == "55P03"
    }
    /// The connection is gone (broken, closed after a timeout, or an 08xxx connection exception):
    /// reconnect before the next call.
    @_spi(HardtackTools) public var isConnectionLost: Bool {
        kind == .connectionLost || kind == .timedOutConnectionClosed || (sqlState?.hasPrefix("08") ?? false)
    }
}

extension PostgreSQLError: CustomStringConvertible {
    /// The failure in words: kind, SQLSTATE, message and shortened SQL; never a value or a password.
    @_spi(HardtackTools) public var description: String {
        var text: String
        switch kind {
        case .invalidLocation: text = "invalid PostgreSQL location"
        case .connectionFailed: text = "cannot connect to PostgreSQL"
        case .tlsCheckFailed: text = "cannot connect to PostgreSQL: the server failed the TLS check"
        case .connectionLost: text = "the PostgreSQL connection was lost"
        case .server: text = "PostgreSQL error"
        case .timedOut: text = "the PostgreSQL call timed out and was cancelled"
        case .timedOutConnectionClosed: text = "the PostgreSQL call timed out and its connection was closed"
        case .wrongType: text = "unexpected PostgreSQL result"
        case .unexpected: text = "unexpected PostgreSQL answer"
        }
        if let sqlState { text += " \(sqlState)" }
        if let tlsFailure { text += ": \(tlsFailure)" }
        if !message.isEmpty { text += kind == .tlsCheckFailed ? " (libpq: \(message))" : ": \(message)" }
        if let constraint { text += " (constraint \(constraint))" }
        if let sql { text += " in `\(sql)`" }
        return text
    }
}
