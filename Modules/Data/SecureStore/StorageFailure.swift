/// What went wrong beneath a store, said in words and by kind, whatever the backend: the database
/// (SQLite, PostgreSQL), the file system or the crypto library. It never carries a secret, a bound
/// value or a password; the backend's own words (a result code, SQLSTATE, the statement) are kept
/// apart in ``detail`` for a verbose report.
public struct StorageFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of failure a caller may act on differently.
    public enum Kind: String, Sendable, Equatable {
        /// Another process or instance held the store's lock past the wait; trying again may work.
        case busy
        /// The database ended this transaction because it conflicted with another one (a deadlock, a
        /// serialization failure); the store runs its own operations again a few times before saying so.
        case conflict
        /// The disk or quota is full.
        case full
        /// The store's file, directory or medium is read-only, or the database refuses writes.
        case readOnly
        /// The operating system or the database refused access.
        case permission
        /// The database server cannot be reached or is not accepting connections.
        case unavailable
        /// The database server was reached but refused to let the store in: a wrong password, an unknown
        /// role or database, or a rule of the server's (`pg_hba.conf`). Trying again will not help.
        case notAuthenticated
        /// The database server was reached but failed the TLS check: it offers no TLS, or its
        /// certificate is not trusted or not issued for the host named. Trying again will not help.
        case serverNotVerified
        /// The connection was lost during the call (the outcome of a write is told separately).
        case connectionLost
        /// The call did not finish within its time limit.
        case timedOut
        /// Memory or another resource ran out.
        case resources
        /// The store was written by a newer version of Hardtack, in a format this one does not read.
        case newerFormat
        /// The database server is older than the store supports (PostgreSQL before 13).
        case unsupportedServer
        /// The store was used in a way it does not allow (a call inside its own transaction, say).
        case misuse
        /// Any other failure.
        case other
    }

    /// What failed: "SQLite", "PostgreSQL", "the file system", "libsodium" or "the store".
    public let backend: String
    /// The kind of failure.
    public let kind: Kind
    /// What happened, in words, without codes or SQL.
    public let message: String
    /// The backend's own words (a result code and the statement, SQLSTATE, errno), for `--verbose`;
    /// never a bound value or a secret.
    public let detail: String?

    /// A failure of `backend` of `kind`, said as `message`, with the backend's own words as `detail`.
    public init(backend: String, kind: Kind, message: String, detail: String? = nil) {
        self.backend = backend
        self.kind = kind
        self.message = message
        self.detail = detail
    }

    /// A misuse of the store's own API, or a failure of the store's own logic.
    public static func store(_ message: String, kind: Kind = .misuse) -> StorageFailure {
        StorageFailure(backend: "the store", kind: kind, message: message)
    }

    /// What to do next, by kind.
    public var advice: String {
        switch kind {
        case .busy: "Try again when that process has finished."
        case .conflict: "Try again; nothing of this write was saved."
        case .full: "Free some disk space and try again."
        case .readOnly: "Reads work there, writes are impossible; to change the store, copy it to a writable place."
        case .permission: "Check that this user (or database role) owns the store and may write to it."
        case .unavailable: "Check that the database server is running and reachable, then try again."
        case .notAuthenticated:
            "Check the user, password and database the store's URI (or its password file) names, and that the "
                + "server lets that role connect from here."
        case .serverNotVerified:
            "Give the client the CA certificate that signed the server's certificate, and name the server as its certificate does."
        case .connectionLost: "The store is consistent; read what you wrote before trying it again (it may have been saved)."
        case .timedOut: "Try again later."
        case .resources: "Free some memory and try again."
        case .newerFormat: "Open it with the newer version that wrote it."
        case .unsupportedServer: "Upgrade the database server, or use a server of a supported version."
        case .misuse, .other: "Try again; if it keeps failing, report it."
        }
    }

    /// One line: what failed and what to do (the backend and its own words are in ``verboseDetail``).
    public var description: String {
        // A message that ends a sentence itself (libpq's may end in a question) gets no second stop.
        let stop = message.last.map { ".?!".contains($0) } ?? false ? " " : ". "
        return message + stop + advice
    }

    /// The backend and its own words, for `--verbose`.
    public var verboseDetail: String { backend + (detail.map { ": " + $0 } ?? "") }
}
