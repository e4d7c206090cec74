import Data

/// The connection layer's errors said as the store's: a unique violation is a duplicate item, a
/// server that cannot be reached is "unavailable", a lock held too long is "busy", and every other
/// failure keeps its SQLSTATE and statement as the detail, never in the message.
enum PostgreSQLFailure {
    /// The store error for `error`.
    static func storeError(_ error: PostgreSQLError) -> SecureStoreError {
        if error.isUniqueViolation { return .duplicateItem }
        if error.isMissingObject {
            // Every statement names only the store's own tables and columns, which the store never drops
            // once made (an upgrade replaces them under the advisory lock, before any handle of the new
            // version reads them): one that is gone was removed behind the store's back, and a dropped
            // digest table would otherwise pass as a storage failure rather than tampering. (The
            // server's own functions the store calls exist from PostgreSQL 13, which the opener checks.)
            return .integrityFailure(
                "a table or column of the store is missing from its PostgreSQL schema: it was dropped or "
                    + "changed outside Hardtack (or a newer version of Hardtack upgraded the store while this one "
                    + "ran: use the newer one); the server said: \(error.message) (SQLSTATE \(error.sqlState ?? "?"))")
        }
        return .storage(failure(error))
    }

    /// The storage failure for `error`.
    static func failure(_ error: PostgreSQLError) -> StorageFailure {
        let kind: StorageFailure.Kind
        let message: String
        switch error.kind {
        case .invalidLocation:
            (kind, message) = (.other, "the PostgreSQL URI is not valid: \(error.message)")
        case .connectionFailed where refusesCredentials(error):
            (kind, message) = (
                .notAuthenticated, "the PostgreSQL server refused the store's connection: \(error.message)"
            )
        case .connectionFailed:
            (kind, message) = (.unavailable, "cannot connect to the PostgreSQL server: \(error.message)")
        case .tlsCheckFailed:
            let cause = error.tlsFailure.map(\.description) ?? "the TLS check failed"
            (kind, message) = (.serverNotVerified, "the PostgreSQL server failed the TLS check: \(cause) (libpq: \(error.message))")
        case .connectionLost:
            (kind, message) = (.connectionLost, "the connection to the PostgreSQL server was lost")
        case .timedOut, .timedOutConnectionClosed:
            (kind, message) = (.timedOut, "the PostgreSQL server did not answer in time")
        case .wrongType, .unexpected:
            (kind, message) = (.other, "the PostgreSQL server's answer did not fit the store's tables: \(error.message)")
        case .server:
            switch error.sqlState ?? "" {
            case "55P03":
                (kind, message) = (.busy, "another instance held the store's lock for too long")
            case "40001", "40P01":
                (kind, message) = (.conflict, "the PostgreSQL server ended this write because it conflicted with another transaction")
            case "57014":
                (kind, message) = (.timedOut, "the PostgreSQL server cancelled a statement (a statement timeout, or a cancel request)")
            case "53100":
                (kind, message) = (.full, "the PostgreSQL server's disk is full")
            case "42501":
                (kind, message) = (.permission, "the PostgreSQL role may not use the store's tables")
            case "25006":
                (kind, message) = (.readOnly, "the PostgreSQL server is read-only")
            case let state where state.hasPrefix("08") || state.hasPrefix("57P"):
                (kind, message) = (.unavailable, "the PostgreSQL server is shutting down or unavailable")
            case let state where state.hasPrefix("53"):
                (kind, message) = (.resources, "the PostgreSQL server ran out of resources")
            default:
                (kind, message) = (.other, "the PostgreSQL server refused a statement: \(error.message)")
            }
        }
        var detail = error.sqlState.map { "SQLSTATE \($0)" } ?? "no SQLSTATE"
        if let sql = error.sql { detail += " in `\(sql)`" }
        return StorageFailure(backend: "PostgreSQL", kind: kind, message: message, detail: detail)
    }

    /// Whether a failed connection was refused its credentials, role or database (trying again will not
    /// help) rather than that the server could not be reached: by the server's SQLSTATE (class 28, an
    /// authorization refused; 3D000, no such database; 42501, no right to connect to it), else by libpq's
    /// own words, or the server's in English.
    static func refusesCredentials(_ error: PostgreSQLError) -> Bool {
        if let state = error.sqlState {
            return state.hasPrefix("28") || state == "3D000" || state == "42501"
        }
        return refusesCredentials(error.message)
    }

    /// What libpq and the server say when they reached each other and the server refused the connection
    /// itself, in English: libpq's own words (`no password supplied`), and a server's, for a refusal whose
    /// SQLSTATE was not read.
    private static let credentialRefusals = [
        "authentication failed", "no password supplied", "pg_hba.conf", "permission denied for database",
        "is not permitted to log in",
    ]

    /// Whether a failed connection's `message` says, in English, that the server refused its credentials,
    /// role or database.
    static func refusesCredentials(_ message: String) -> Bool {
        if credentialRefusals.contains(where: { message.contains($0) }) { return true }
        // `FATAL:  role "x" does not exist`, `FATAL:  database "x" does not exist`.
        return message.contains("does not exist") && (message.contains("role \"") || message.contains("database \""))
    }
}
