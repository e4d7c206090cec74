import Data
import Testing

@_spi(HardtackTools) @testable import PostgreSQLStore

/// A failed connection told by the server's SQLSTATE, or by libpq's and PostgreSQL 15's own words: a refusal of
/// its credentials, role or database is no outage (trying again will not help); a server starting, stopping or
/// full is one.
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

    /// A German server's refusals (PostgreSQL 15's own translations), as libpq writes them in verbose mode while
    /// connecting: told by their SQLSTATE, and said without it or the server's source location.
    static let german: [(said: String, state: String, refused: Bool)] = [
        (
            "connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  28P01: "
                + "Passwort-Authentifizierung für Benutzer »x« fehlgeschlagen\nLOCATION:  auth_failed, auth.c:323\n",
            "28P01", true
        ),
        ("FATAL:  3D000: Datenbank »y« existiert nicht\nLOCATION:  InitPostgres, postinit.c:941\n", "3D000", true),
        ("FATAL:  28000: Rolle »x« hat keine Berechtigung zum Einloggen\n", "28000", true),
        ("FATAL:  42501: keine Berechtigung für Datenbank »y«\nDETAIL:  x\n", "42501", true),
        (
            "FATAL:  57P03: das Datenbanksystem startet\nLOCATION:  ProcessStartupPacket, postmaster.c:2421\n", "57P03",
            false
        ),
        ("FATAL:  53300: tut mir leid, schon zu viele Verbindungen\n", "53300", false),
    ]

    @Test(arguments: german) func aRefusalInAnotherLanguageIsToldByItsSQLSTATE(
        said: String, state: String, refused: Bool
    ) {
        let (read, message) = PostgreSQLVerboseMessage.read(said)
        #expect(read == state)
        #expect(message.hasPrefix(said.hasPrefix("FATAL") ? "FATAL:  " : "connection to server"), "\(message)")
        #expect(!message.contains(state) && !message.contains("LOCATION"), "\(message)")
        let error = PostgreSQLError(.connectionFailed, message: PostgreSQLConnector.tidy(message), sqlState: read)
        #expect(PostgreSQLFailure.failure(error).kind == (refused ? .notAuthenticated : .unavailable))
        #expect(!PostgreSQLFailure.refusesCredentials(error.message), "told by its words, not its code")
    }

    /// libpq tried two hosts (the first starting up, the second refusing the password): the last try decides.
    @Test func theLastTrysCodeDecides() {
        let said =
            "connection to server at \"h1\" (10.0.0.1), port 5432 failed: FATAL:  57P03: das Datenbanksystem startet\n"
            + "LOCATION:  ProcessStartupPacket, postmaster.c:2421\n"
            + "connection to server at \"h2\" (10.0.0.2), port 5432 failed: FATAL:  28P01: "
            + "Passwort-Authentifizierung für Benutzer »x« fehlgeschlagen\nLOCATION:  auth_failed, auth.c:323\n"
        let (state, message) = PostgreSQLVerboseMessage.read(said)
        #expect(state == "28P01")
        #expect(
            !message.contains("57P03") && !message.contains("LOCATION") && message.contains("startet"), "\(message)")
        let error = PostgreSQLError(.connectionFailed, message: message, sqlState: state)
        #expect(PostgreSQLFailure.failure(error).kind == .notAuthenticated)
    }

    /// A program that set a locale has libpq's labels translated (`ORT` for `LOCATION`); such a line goes too.
    @Test func aTranslatedSourceLocationLineIsDropped() {
        let (state, message) = PostgreSQLVerboseMessage.read(
            "FATAL:  28P01: Passwort-Authentifizierung für Benutzer »x« fehlgeschlagen\nORT:  auth_failed, auth.c:323\n"
        )
        #expect(state == "28P01")
        #expect(message == "FATAL:  Passwort-Authentifizierung für Benutzer »x« fehlgeschlagen\n", "\(message)")
    }

    /// Text a user chose that libpq quotes (a certificate's path, a host) is never taken for a code.
    @Test func aCodeInQuotedTextIsNoCode() {
        let said = #"could not read root certificate file "/tmp/a:  28P01: b": No such file or directory"#
        #expect(PostgreSQLVerboseMessage.read(said) == (nil, said))
        let host = #"could not translate host name "x:  28P01: y" to address: Name or service not known"#
        #expect(PostgreSQLVerboseMessage.read(host) == (nil, host))
    }

    @Test func wordsWithoutACodeAreLeftAsTheyAre() {
        let said =
            "connection to server at \"a\" (127.0.0.1), port 1 failed: Connection refused\n"
            + "\tIs the server running on that host and accepting TCP/IP connections?\n"
        let (state, message) = PostgreSQLVerboseMessage.read(said)
        #expect(state == nil && message == said)
        #expect(PostgreSQLVerboseMessage.read("fe_sendauth: no password supplied").sqlState == nil)
        #expect(PostgreSQLVerboseMessage.read("FATAL:  28p01: lower case is no code").sqlState == nil)
    }

    @Test func libpqsRepeatedLinesAreSaidOnceAndDistinctOnesKept() {
        let twice =
            "connection to server at \"a\" failed: FATAL:  password authentication failed for user \"x\"\n"
            + "connection to server at \"a\" failed: FATAL:  password authentication failed for user \"x\"\n"
        #expect(PostgreSQLConnector.tidy(twice).components(separatedBy: "password authentication").count == 2)
        let two =
            "connection to server at \"a\" (::1) failed: Connection refused\n\tIs the server running?\n"
            + "connection to server at \"a\" (127.0.0.1) failed: Connection refused\n\tIs the server running?\n"
        #expect(
            PostgreSQLConnector.tidy(two)
                == "connection to server at \"a\" (::1) failed: Connection refused; Is the server running?; "
                + "connection to server at \"a\" (127.0.0.1) failed: Connection refused")
    }
}
