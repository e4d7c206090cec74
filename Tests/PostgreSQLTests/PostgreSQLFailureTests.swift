import Data
import Testing

@_spi(HardtackTools) @testable import PostgreSQLStore

/// A failed connection told by libpq's and PostgreSQL 15's own words: a refusal of its credentials, role or
/// database is no outage (trying again will not help); a server starting, stopping or full is one.
@Suite struct PostgreSQLFailureTests {
    static let refusals = [
        #"connection to server at "127.0.0.1", port 5432 failed: "#
            + #"FATAL:  password authentication failed for user "x""#,
        #"connection to server at "127.0.0.1", port 5432 failed: fe_sendauth: no password supplied"#,
        #"FATAL:  no pg_hba.conf entry for host "127.0.0.1", user "x", database "y", no encryption"#,
        #"FATAL:  pg_hba.conf rejects connection for host "127.0.0.1", user "x", database "y", SSL encryption"#,
        #"connection to server on socket "/tmp/.s.PGSQL.5432" failed: FATAL:  role "x" does not exist"#,
        #"connection to server at "127.0.0.1", port 5432 failed: FATAL:  database "y" does not exist"#,
        #"FATAL:  permission denied for database "y"; DETAIL:  User does not have CONNECT privilege."#,
        #"connection to server at "127.0.0.1", port 5432 failed: "#
            + #"FATAL:  role "nologin" is not permitted to log in"#,
        #"FATAL:  Peer authentication failed for user "x""#,
    ]

    static let outages = [
        #"connection to server at "127.0.0.1", port 1 failed: Connection refused; "#
            + "Is the server running on that host and accepting TCP/IP connections?",
        #"connection to server at "127.0.0.1", port 5432 failed: FATAL:  the database system is starting up"#,
        #"connection to server at "127.0.0.1", port 5432 failed: FATAL:  the database system is shutting down"#,
        #"FATAL:  the database system is in recovery mode"#,
        #"FATAL:  sorry, too many clients already"#,
        #"FATAL:  too many connections for role "x""#,
        #"FATAL:  database "y" is not currently accepting connections"#,
        "no answer from postgresql://127.0.0.1:5432/y within 5 seconds",
    ]

    @Test(arguments: refusals) func aRefusalOfCredentialsRoleOrDatabaseIsNotAnOutage(_ message: String) {
        #expect(PostgreSQLFailure.refusesCredentials(message))
        let failure = PostgreSQLFailure.failure(PostgreSQLError(.connectionFailed, message: message))
        #expect(failure.kind == .notAuthenticated && failure.message.hasPrefix("the PostgreSQL server refused"))
    }

    @Test(arguments: outages) func aServerStartingStoppingFullOrAwayIsAnOutage(_ message: String) {
        #expect(!PostgreSQLFailure.refusesCredentials(message))
        #expect(PostgreSQLFailure.failure(PostgreSQLError(.connectionFailed, message: message)).kind == .unavailable)
    }

    @Test func libpqsRepeatedLinesAreSaidOnceAndDistinctOnesKept() {
        let twice = "connection to server at \"a\" failed: FATAL:  password authentication failed for user \"x\"\n"
            + "connection to server at \"a\" failed: FATAL:  password authentication failed for user \"x\"\n"
        #expect(PostgreSQLConnector.tidy(twice).components(separatedBy: "password authentication").count == 2)
        let two = "connection to server at \"a\" (::1) failed: Connection refused\n\tIs the server running?\n"
            + "connection to server at \"a\" (127.0.0.1) failed: Connection refused\n\tIs the server running?\n"
        #expect(
            PostgreSQLConnector.tidy(two)
                == "connection to server at \"a\" (::1) failed: Connection refused; Is the server running?; "
                + "connection to server at \"a\" (127.0.0.1) failed: Connection refused")
    }
}
