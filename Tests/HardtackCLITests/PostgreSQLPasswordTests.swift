import Foundation
import TestSupport
import Testing

/// A database password kept off the command line: `--store-file` (mode 0600 only), `~/.pgpass` and
/// `PGPASSWORD` as libpq reads them, and one warning line, without the password, when `--store` holds
/// one. Then the TLS check as the command line shows it. Never the password in any output.
struct PostgreSQLPasswordTests {
    private let key = ["PG_KEY": String(repeating: "ef", count: 32)]

    /// The URI without its password.
    private func withoutPassword(_ uri: String) throws -> String {
        var components = try #require(URLComponents(string: uri))
        components.password = nil
        return try #require(components.string)
    }

    private func expectNoPassword(_ results: [CLIResult], _ password: String) {
        for result in results {
            #expect(!result.stdout.contains(password) && !result.stderr.contains(password), "the password shows")
        }
    }

    @Test func aPasswordInStoreIsWarnedAboutOnceWithoutIt() async throws {
        let sandbox = CLISandbox()
        let (uri, password) = try await sandbox.freshPostgreSQLDatabase()
        let add = try await sandbox.run(
            ["keychain", "--store", uri, "--key-env", "PG_KEY", "add-generic-password", "-s", "api", "-a", "alice", "-w", "x"],
            environment: key)
        #expect(add.status == 0, "\(add.stderr)")
        let lines = add.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(add.stderr)")
        #expect(lines.first?.hasPrefix("hardtack: warning: the password in the --store URI is visible") == true)
        for alternative in ["~/.pgpass", "PGPASSFILE", "PGPASSWORD", "--store-file"] {
            #expect(add.stderr.contains(alternative), "\(alternative)")
        }
        // Without a password in the URI (libpq finds it in PGPASSWORD), no warning.
        let find = try await sandbox.run(
            ["keychain", "--store", try withoutPassword(uri), "--key-env", "PG_KEY", "find-generic-password", "-s", "api", "-w"],
            environment: key.merging(["PGPASSWORD": password]) { $1 })
        #expect(find.status == 0, "\(find.stderr)")
        #expect(find.stdout == "x\n" && find.stderr.isEmpty, "\(find.stderr)")
        expectNoPassword([add, find], password)
    }

    @Test func aPasswordInSalvagesTargetIsWarnedAboutWithoutIt() async throws {
        let sandbox = CLISandbox()
        try await sandbox.addGeneric(service: "api", account: "alice", secret: "x")
        let secret = "target-pw-\(UInt32.random(in: 0...UInt32.max))"
        let salvage = try await sandbox.keychain(
            ["salvage", "--to", "postgresql://u:\(secret)@127.0.0.1:1/x", "--to-key-env", "PG_KEY"], environment: key)
        #expect(salvage.status != 0)
        #expect(salvage.stderr.contains("hardtack: warning: the password in the --to URI is visible"), "\(salvage.stderr)")
        #expect(!salvage.stderr.contains("--store-file"), "\(salvage.stderr)")
        expectNoPassword([salvage], secret)
    }

    @Test func thePasswordFileIsReadAsLibpqReadsIt() async throws {
        let sandbox = CLISandbox()
        let (uri, password) = try await sandbox.freshPostgreSQLDatabase()
        let components = try #require(URLComponents(string: uri))
        let home = sandbox.directory.file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let line = "\(components.host ?? ""):\(components.port ?? 0):*:\(components.user ?? ""):\(password)\n"
        #expect(FileManager.default.createFile(atPath: home + "/.pgpass", contents: Data(line.utf8), attributes: [.posixPermissions: 0o600]))
        let store = ["keychain", "--store", try withoutPassword(uri), "--key-env", "PG_KEY"]
        let add = try await sandbox.run(store + ["add-generic-password", "-s", "api", "-a", "a", "-w", "y"], environment: key)
        #expect(add.status == 0 && add.stderr.isEmpty, "\(add.stderr)")
        // Without it, the server refuses: the password came from the file.
        try FileManager.default.removeItem(atPath: home + "/.pgpass")
        let refused = try await sandbox.run(store + ["find-generic-password", "-s", "api", "-w"], environment: key)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("password"), "\(refused.stderr)")
        expectNoPassword([add, refused], password)
    }

    @Test func storeFileNamesTheStoreAndMustBePrivate() async throws {
        let sandbox = CLISandbox()
        let (uri, password) = try await sandbox.freshPostgreSQLDatabase()
        let file = try sandbox.privateFile("store-uri", uri + "\n")
        let store = ["keychain", "--store-file", file, "--key-env", "PG_KEY"]
        let add = try await sandbox.run(store + ["add-generic-password", "-s", "api", "-a", "alice", "-w", "z"], environment: key)
        #expect(add.status == 0 && add.stderr.isEmpty, "\(add.stderr)")
        let find = try await sandbox.run(store + ["find-generic-password", "-s", "api", "-w"], environment: key)
        #expect(find.stdout == "z\n", "\(find.stderr)")
        // The same store through --store: the file named it.
        let direct = try await sandbox.run(
            ["keychain", "--store", uri, "--key-env", "PG_KEY", "find-generic-password", "-s", "api", "-w"], environment: key)
        #expect(direct.stdout == "z\n", "\(direct.stderr)")

        #expect(chmod(file, 0o644) == 0)
        let open = try await sandbox.run(store + ["find-generic-password", "-s", "api", "-w"], environment: key)
        #expect(open.status == 1)
        #expect(open.stdout.isEmpty)
        #expect(open.stderr.contains("Refusing to use \(file)"), "\(open.stderr)")
        #expect(open.stderr.contains("mode 644") && open.stderr.contains("chmod 600"), "\(open.stderr)")
        #expect(chmod(file, 0o620) == 0)
        let writable = try await sandbox.run(store + ["find-generic-password", "-s", "api", "-w"], environment: key)
        #expect(writable.status == 1 && writable.stderr.contains("mode 620"), "\(writable.stderr)")

        #expect(chmod(file, 0o600) == 0)
        let both = try await sandbox.run(
            ["keychain", "--store", uri, "--store-file", file, "--key-env", "PG_KEY", "find-generic-password", "-s", "api"],
            environment: key)
        #expect(both.status == 2 && both.stderr.contains("--store and --store-file"), "\(both.stderr)")
        let missing = try await sandbox.run(
            ["keychain", "--store-file", file + ".missing", "--key-env", "PG_KEY", "find-generic-password", "-s", "api"],
            environment: key)
        #expect(missing.status == 2 && missing.stderr.contains("cannot read the store file"), "\(missing.stderr)")
        let empty = try sandbox.privateFile("empty", "\n")
        let blank = try await sandbox.run(
            ["keychain", "--store-file", empty, "--key-env", "PG_KEY", "find-generic-password", "-s", "api"], environment: key)
        #expect(blank.status == 2 && blank.stderr.contains("is empty"), "\(blank.stderr)")
        expectNoPassword([add, find, direct, open, writable, both, missing, blank], password)
    }

    @Test func theHelpSaysWhereAPasswordIsSafe() async throws {
        let help = try await CLISandbox().run(["keychain", "--help"])
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("--store-file FILE"))
        #expect(text.contains("A password in the URI is visible to other users of this machine (ps, /proc)"), "\(text)")
        #expect(text.contains("~/.pgpass"))
    }

    @Test func aServerThatFailsTheTLSCheckIsNamedWithTheWayOut() async throws {
        let sandbox = CLISandbox()
        let (uri, password) = try await sandbox.freshPostgreSQLDatabase()
        // db.hardtack.test is not loopback, so the check is verify-full; hostaddr reaches the test server.
        var components = try #require(URLComponents(string: uri))
        components.host = "db.hardtack.test"
        let remote = try #require(components.string) + "?hostaddr=127.0.0.1"
        let file = try sandbox.privateFile("store-uri", remote + "\n")
        let store = ["keychain", "--store-file", file, "--key-env", "PG_KEY"]
        let refused = try await sandbox.run(store + ["add-generic-password", "-s", "api", "-a", "a", "-w", "x"], environment: key)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("failed the TLS check"), "\(refused.stderr)")
        #expect(refused.stderr.contains("no file of trusted CA certificates at \(sandbox.directory.file("home"))/.postgresql/root.crt"))
        #expect(refused.stderr.contains("sslrootcert=FILE") && refused.stderr.contains("sslmode=require"), "\(refused.stderr)")
        #expect(refused.stderr.contains("PGSSLMODE"))
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")

        // The CA where libpq looks by default, ~/.postgresql/root.crt, is honoured; so is PGSSLROOTCERT.
        let certificate = try await sandbox.runProcess("/usr/bin/psql", [uri, "-Atc", "SHOW ssl_cert_file"])
        let authority = (certificate.stdout.trimmingCharacters(in: .whitespacesAndNewlines) as NSString)
            .deletingLastPathComponent + "/ca.crt"
        let added = try await sandbox.run(
            store + ["add-generic-password", "-s", "api", "-a", "a", "-w", "x"],
            environment: key.merging(["PGSSLROOTCERT": authority]) { $1 })
        #expect(added.status == 0, "\(added.stderr)")
        let roots = sandbox.directory.file("home") + "/.postgresql"
        try FileManager.default.createDirectory(atPath: roots, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: authority, toPath: roots + "/root.crt")
        let found = try await sandbox.run(store + ["find-generic-password", "-s", "api", "-w"], environment: key)
        #expect(found.stdout == "x\n", "\(found.stderr)")
        // PGSSLMODE opts out: a wrong CA no longer matters under `require` with no root file.
        try FileManager.default.removeItem(atPath: roots + "/root.crt")
        let unchecked = try await sandbox.run(
            store + ["find-generic-password", "-s", "api", "-w"], environment: key.merging(["PGSSLMODE": "require"]) { $1 })
        #expect(unchecked.stdout == "x\n", "\(unchecked.stderr)")
        expectNoPassword([refused, added, found, unchecked], password)
    }
}
