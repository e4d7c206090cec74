import Foundation
import TestSupport
import Testing

/// `hardtack keychain` and the app commands on a PostgreSQL store named by a `postgresql://` URI, on
/// the real server that `Tools/test` starts (`HARDTACK_TEST_POSTGRES`): a database of its own per
/// test, never the URI's password in any output.
struct PostgreSQLStoreCommandTests {
    private func freshDatabase(_ sandbox: CLISandbox) async throws -> (uri: String, password: String) {
        try await sandbox.freshPostgreSQLDatabase()
    }

    @Test func keychainVerbsWorkOnAPostgreSQLStore() async throws {
        let sandbox = CLISandbox()
        let (uri, password) = try await freshDatabase(sandbox)
        let noKey = try await sandbox.run(["keychain", "--store", uri, "add-generic-password", "-s", "api", "-a", "alice", "-w", "x"])
        #expect(noKey.status == 2)
        #expect(noKey.stderr.contains("--key-file"))
        let store = ["keychain", "--store", uri, "--key-env", "PG_KEY"]
        let environment = ["PG_KEY": String(repeating: "ab", count: 32)]
        let add = try await sandbox.run(
            store + ["add-generic-password", "-s", "api", "-a", "alice", "-w", "-"], input: "s3cret", environment: environment)
        #expect(add.status == 0, "\(add.stderr)")
        let again = try await sandbox.run(
            store + ["add-generic-password", "-s", "api", "-a", "alice", "-w", "-"], input: "other", environment: environment)
        #expect(again.status == 45)
        let find = try await sandbox.run(store + ["find-generic-password", "-s", "api", "-a", "alice", "-w"], environment: environment)
        #expect(find.status == 0)
        #expect(find.stdout == "s3cret\n")
        let missing = try await sandbox.run(store + ["find-generic-password", "-s", "api", "-a", "bob", "-w"], environment: environment)
        #expect(missing.status == 44)
        let verify = try await sandbox.run(store + ["verify"], environment: environment)
        #expect(verify.status == 0)
        #expect(verify.stdout.contains("sound items: 1"))
        for result in [noKey, add, again, find, missing, verify] {
            #expect(!result.stdout.contains(password) && !result.stderr.contains(password), "the password shows")
        }
        #expect(verify.stdout.contains(":***@"))
    }

    @Test func aStoreMovesFromSQLiteToPostgreSQLThroughAnExport() async throws {
        let sandbox = CLISandbox()
        let (uri, _) = try await freshDatabase(sandbox)
        let passphrase = try sandbox.privateFile("export.txt", "export passphrase\n")
        let environment = ["PG_KEY": String(repeating: "cd", count: 32), "HARDTACK_ARGON2_COST": "interactive"]
        try await sandbox.addGeneric(service: "api", account: "alice", secret: "a-secret")
        try await sandbox.addGeneric(service: "mail", account: "bob", secret: "b-secret")
        let file = sandbox.directory.file("move.htk")
        let export = try await sandbox.keychain(
            ["export", "--to", file, "--export-passphrase-file", passphrase, "--json"], environment: environment)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout == "{\"exported\": 2}\n")
        let target = ["keychain", "--store", uri, "--key-env", "PG_KEY"]
        let imported = try await sandbox.run(
            target + ["import", "--from", file, "--export-passphrase-file", passphrase], environment: environment)
        #expect(imported.status == 0, "\(imported.stderr)")
        let found = try await sandbox.run(target + ["find-generic-password", "-s", "mail", "-a", "bob", "-w"], environment: environment)
        #expect(found.stdout == "b-secret\n")
        let again = try await sandbox.run(
            target + ["import", "--from", file, "--export-passphrase-file", passphrase], environment: environment)
        #expect(again.status == 45)
        var damaged = FileBytes.read(file)
        damaged[damaged.count / 2] ^= 0x40
        try FileBytes.write(damaged, to: file)
        let refused = try await sandbox.run(
            target + ["import", "--from", file, "--export-passphrase-file", passphrase, "-U"], environment: environment)
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("export file is damaged"))
    }

    @Test func anUnreachableServerIsStoreUnavailable() async throws {
        let sandbox = CLISandbox()
        let (uri, password) = try await freshDatabase(sandbox)
        var components = try #require(URLComponents(string: uri))
        components.port = 1
        let closed = try #require(components.string)
        let status = try await sandbox.run(
            ["status", "--store", closed, "--key-env", "PG_KEY"], environment: ["PG_KEY": String(repeating: "ab", count: 32)])
        #expect(status.status == 75, "\(status.stderr)")
        #expect(status.stderr.contains("cannot connect to the PostgreSQL server"))
        #expect(!status.stderr.contains("?."), "libpq's question ends its sentence: \(status.stderr)")
        #expect(!status.stderr.contains(password))
        // Timed by the thread that waited for it: a task's own clock could count its wait to be resumed.
        let elapsed = try #require(status.elapsed)
        #expect(elapsed < 10, "the refused connection was told in \(elapsed) s")
    }

    /// A wrong password is no outage: said once, in the server's words, with what to check, and exit 1
    /// (trying again later will not help), never the password given or the right one.
    @Test func aWrongPasswordIsSaidOnceWithWhatToCheck() async throws {
        let sandbox = CLISandbox()
        let (uri, password) = try await freshDatabase(sandbox)
        let wrong = "wrong-\(UInt64.random(in: 1_000_000...9_999_999))"
        var components = try #require(URLComponents(string: uri))
        components.password = wrong
        let refused = try #require(components.string)
        let status = try await sandbox.run(
            ["status", "--store", refused, "--key-env", "PG_KEY"],
            environment: ["PG_KEY": String(repeating: "ab", count: 32)])
        #expect(status.status == 1, "\(status.stderr)")
        #expect(status.stderr.contains("the PostgreSQL server refused the store's connection"), "\(status.stderr)")
        let said = status.stderr.components(separatedBy: "password authentication failed").count - 1
        #expect(said == 1, "once: \(status.stderr)")
        #expect(status.stderr.contains("Check the user, password and database"))
        #expect(!status.stderr.contains("running and reachable") && !status.stderr.contains("?."))
        #expect(!status.stderr.contains(password) && !status.stderr.contains(wrong))
    }
}
