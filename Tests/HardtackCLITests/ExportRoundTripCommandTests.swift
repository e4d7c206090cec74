import Foundation
import TestSupport
import Testing

/// A store moved SQLite → PostgreSQL → SQLite with `export` and `import` in a non-default access group
/// (`--access-group`): every attribute the commands set, both dates and every secret come back as
/// they were; items of other groups stay behind.
struct ExportRoundTripCommandTests {
    @Test func aStoreMovesToPostgreSQLAndBackWithEverythingKept() async throws {
        let sandbox = CLISandbox()
        let (uri, password) = try await sandbox.freshPostgreSQLDatabase()
        let environment = ["PG_KEY": String(repeating: "ef", count: 32), "HARDTACK_ARGON2_COST": "interactive"]
        let passphrase = try sandbox.privateFile("export.txt", "export passphrase\n")
        let team = ["--access-group", "team"]
        let added = [
            try await sandbox.keychain(
                team + ["add-generic-password", "-s", "api", "-a", "alice", "-l", "API key", "-j", "rotated monthly", "-w", "-"],
                input: "g-secret"),
            try await sandbox.keychain(
                team + [
                    "add-internet-password", "-s", "example.com", "-a", "bob", "-r", "https", "-P", "8443", "-p", "/login",
                    "-l", "site", "-j", "shared", "-w", "-",
                ], input: "i-secret"),
            try await sandbox.keychain(["add-generic-password", "-s", "other", "-a", "carol", "-w", "-"], input: "stays"),
        ]
        for result in added { #expect(result.status == 0, "\(result.stderr)") }
        let first = sandbox.directory.file("first.htk")
        let exported = try await sandbox.keychain(
            team + ["export", "--to", first, "--export-passphrase-file", passphrase, "--json"], environment: environment)
        #expect(exported.stdout == "{\"exported\": 2}\n", "\(exported.stderr)")
        let pg = ["keychain", "--store", uri, "--key-env", "PG_KEY"] + team
        let intoPG = try await sandbox.run(
            pg + ["import", "--from", first, "--export-passphrase-file", passphrase], environment: environment)
        #expect(intoPG.status == 0, "\(intoPG.stderr)")
        let second = sandbox.directory.file("second.htk")
        let fromPG = try await sandbox.run(
            pg + ["export", "--to", second, "--export-passphrase-file", passphrase], environment: environment)
        #expect(fromPG.status == 0, "\(fromPG.stderr)")
        let back = sandbox.directory.file("back/keychain.db")
        let sqlite = ["keychain", "--store", back] + team
        let intoSQLite = try await sandbox.run(
            sqlite + ["import", "--from", second, "--export-passphrase-file", passphrase], environment: environment)
        #expect(intoSQLite.status == 0, "\(intoSQLite.stderr)")
        // The dumps (every attribute, both dates) agree, store name aside.
        func items(_ arguments: [String]) async throws -> String {
            let dump = try await sandbox.run(arguments + ["dump", "--json"], environment: environment)
            #expect(dump.status == 0, "\(dump.stderr)")
            let start = try #require(dump.stdout.range(of: "\"items\""), "\(dump.stdout)")
            return String(dump.stdout[start.lowerBound...])
        }
        let original = try await items(["keychain", "--store", sandbox.store] + team)
        #expect(original.contains("\"creationDate\"") && original.contains("\"comment\": \"shared\""))
        #expect(original.contains("\"accessGroup\": \"team\"") && !original.contains("carol"))
        #expect(try await items(pg) == original)
        #expect(try await items(sqlite) == original)
        for (query, secret) in [
            (["find-generic-password", "-s", "api", "-a", "alice", "-w"], "g-secret"),
            (["find-internet-password", "-s", "example.com", "-a", "bob", "-r", "https", "-P", "8443", "-p", "/login", "-w"], "i-secret"),
        ] {
            #expect(try await sandbox.run(pg + query, environment: environment).stdout == secret + "\n")
            #expect(try await sandbox.run(sqlite + query, environment: environment).stdout == secret + "\n")
        }
        // The other group's item was not exported.
        let missing = try await sandbox.run(
            ["keychain", "--store", back, "find-generic-password", "-s", "other", "-a", "carol", "-w"], environment: environment)
        #expect(missing.status == 44)
        for result in [intoPG, fromPG, intoSQLite] { #expect(!result.stderr.contains(password)) }
    }
}
