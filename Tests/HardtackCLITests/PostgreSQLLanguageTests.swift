import Foundation
import TestSupport
import Testing

/// A PostgreSQL server that speaks German (PostgreSQL 15's own translations, as a server set up in that
/// language says them): its refusal of a wrong password or of a database that does not exist is still told
/// as a refusal, with what to check (exit 1), not as an outage to wait out (exit 75).
@Suite struct PostgreSQLLanguageTests {
    @Test func aGermanServersRefusalsAreToldAsRefusals() async throws {
        let sandbox = CLISandbox()
        let database = try await OwnPostgreSQLServer.start(scratch: sandbox.directory.path)
        defer { database.stop() }
        let halted = try await database.halt()
        try #require(halted.status == 0, "pg_ctl stop: \(halted.stderr)")
        let restarted = try await database.restart(language: "de")
        try #require(restarted.status == 0, "pg_ctl start: \(restarted.stderr)")

        let right = try #require(URLComponents(string: database.uri))
        var wrongPassword = right
        wrongPassword.password = "falsch-\(UInt64.random(in: 1_000_000...9_999_999))"
        var missingDatabase = right
        missingDatabase.path = "/nicht_da"
        for (components, words) in [
            (wrongPassword, "Passwort-Authentifizierung"), (missingDatabase, "existiert nicht"),
        ] {
            let uri = try #require(components.string)
            let status = try await sandbox.run(
                ["status", "--store", uri, "--key-env", "PG_KEY"],
                environment: ["PG_KEY": String(repeating: "ab", count: 32)])
            #expect(status.stderr.contains(words), "the server did not speak German: \(status.stderr)")
            #expect(status.status == 1, "\(status.stderr)")
            #expect(status.stderr.contains("the PostgreSQL server refused the store's connection"), "\(status.stderr)")
            #expect(status.stderr.contains("Check the user, password and database"), "\(status.stderr)")
            #expect(!status.stderr.contains("cannot connect") && !status.stderr.contains("LOCATION"))
            for secret in [right.password, wrongPassword.password].compactMap({ $0 }) {
                #expect(!status.stderr.contains(secret))
            }
        }
    }
}
