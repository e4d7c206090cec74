#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The app commands run as processes against `hardtack serve` on a loopback port: sign-in, the launch
/// decision, authorized calls shared across processes, sign-out, and their exit codes.
@Suite(.serialized) struct AppCommandTests {
    let sandbox = CLISandbox()

    func app(_ command: String, _ url: String, _ extra: [String] = [], input: String? = nil) async throws -> CLIResult {
        try await sandbox.run([command, "--server", url, "--store", sandbox.store] + extra, input: input)
    }

    func stats(_ url: String) throws -> [String: Int] {
        let data = try Data(contentsOf: try #require(URL(string: url + "/debug/stats")))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Int])
    }

    func stop(_ server: RunningProcess) -> CLIResult {
        server.process.terminate()
        return server.waitAfterStop()
    }

    @Test func plainHardtackRunsTheDemoAndShowsNoToken() async throws {
        let result = try await sandbox.run([])
        #expect(result.status == 0)
        for step in ["1. Launch", "2. Sign in", "3. Relaunch", "4. Authorized call", "6. The next call refreshes",
            "they shared 1 refresh", "reuse detections: 1", "session deleted", "Done in"]
        {
            #expect(result.stdout.contains(step), "\(step)")
        }
        #expect(!result.stdout.contains("eyJ"))
        let storeLine = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("Store:") })
        let path = storeLine.dropFirst("Store:".count).trimmingCharacters(in: .whitespaces)
        #expect(!FileManager.default.fileExists(atPath: path), "the temporary store is removed")
    }

    @Test func processesSharingAStoreRefreshExactlyOnceAfterExpiry() async throws {
        // Only the signed-in token lives 2 s: the refreshed one lives an hour, so that it cannot run out too
        // before the last caller comes, however slowly a busy machine starts them.
        let (server, url) = try await sandbox.startServer(["--access-token-lifetime", "2", "--refreshed-access-token-lifetime", "3600"])
        defer { _ = stop(server) }
        let signIn = try await app("signin", url, ["--username", "alice", "--password-stdin"], input: "wonderland\n")
        #expect(signIn.status == 0, "\(signIn.stderr)")
        #expect(signIn.stdout.contains("signed in as Alice Liddell"))
        #expect(try await sandbox.run(["status", "--store", sandbox.store]).status == 0)

        try await Task.sleep(for: .seconds(2))  // The token (2 s, so 0.2 s of skew allowance, a tenth) is now known to be expired.
        let status = try await sandbox.run(["status", "--store", sandbox.store])
        #expect(status.status == 0)
        #expect(status.stdout.contains("refresh before the first call"))

        let executable = try #require(HardtackExecutable.path)
        let callers = try (0..<4).map { _ in
            try sandbox.launch(
                executable, ["me", "--server", url, "--store", sandbox.store, "--concurrent", "5"])
        }
        var refreshesByProcesses = 0
        for result in await callers.waitAll() {
            #expect(result.status == 0, "\(result.stderr)")
            let line = result.stdout.split(separator: "\n").first { $0.hasPrefix("refreshes by this process: ") }
            refreshesByProcesses += Int(line?.split(separator: " ").last ?? "") ?? 99
        }
        let counters = try stats(url)
        #expect(counters["refreshes"] == 1)
        #expect(refreshesByProcesses == 1)
        #expect(counters["reuseDetections"] == 0)

        let signOut = try await app("signout", url)
        #expect(signOut.status == 0)
        #expect(signOut.stdout.contains("refresh token revoked"))
        #expect(try await sandbox.run(["status", "--store", sandbox.store]).status == 3)
        #expect(try await app("me", url).status == 3)
        #expect(stop(server).status == 0)
    }

    @Test func accountsListsTheSessionsWithoutATokenAndAnEmptyStoreHasNone() async throws {
        let none = try await sandbox.run(["accounts", "--store", sandbox.store, "--json"])
        #expect(none.status == 0)
        #expect(none.stdout == "{\n  \"accounts\": []\n}\n")
        #expect(!FileManager.default.fileExists(atPath: sandbox.store), "listing creates no store")
        let (server, url) = try await sandbox.startServer()
        defer { _ = stop(server) }
        let signIn = try await app("signin", url, ["--username", "alice", "--password-stdin"], input: "wonderland\n")
        #expect(signIn.status == 0, "\(signIn.stderr)")
        let listed = try await sandbox.run(["accounts", "--store", sandbox.store])
        #expect(listed.status == 0)
        #expect(listed.stdout.hasPrefix("default · Alice Liddell · password · signed in"))
        let json = try await sandbox.run(["accounts", "--store", sandbox.store, "--json"])
        #expect(json.stdout.contains("\"account\": \"default\""))
        #expect(json.stdout.contains("\"decision\": \"signedIn\""))
        #expect(json.stdout.contains("\"id\": \"alice\""))
        // Never a token: the listing holds none of the stored tokens' text.
        for output in [listed.stdout, json.stdout] {
            #expect(!output.contains("eyJ"), "a JWT shows in: \(output)")
        }
    }

    @Test func accountsKeepTheirOwnSessionsAndSignOutAllSignsOutEvery() async throws {
        let (server, url) = try await sandbox.startServer()
        defer { _ = stop(server) }
        for account in ["work", "personal"] {
            let signIn = try await app(
                "signin", url, ["--account", account, "--username", "alice", "--password-stdin"], input: "wonderland\n")
            #expect(signIn.status == 0, "\(signIn.stderr)")
        }
        let status = { (extra: [String]) async throws -> Int32 in
            try await self.sandbox.run(["status", "--store", self.sandbox.store] + extra).status
        }
        #expect(try await status(["--account", "work"]) == 0)
        #expect(try await status(["--account", "personal"]) == 0)
        #expect(try await status([]) == 3, "the default account has no session")
        #expect(try await status(["--account", "nobody"]) == 3, "an unknown account is simply signed out")
        for command in ["me", "refresh", "signout"] {
            // No session, so no server is needed to say so: signed out, not a usage error.
            let unknown = try await sandbox.run([command, "--store", sandbox.store, "--account", "nobody"])
            #expect(unknown.status == 3, "\(command): \(unknown.stderr)")
            #expect(unknown.stderr.contains("not signed in"), "\(command)")
        }
        #expect(try await app("signout", url, ["--account", "nobody"]).status == 3, "nothing to revoke")
        #expect(try await status(["--account", "tab\there"]) == 2, "a name that cannot be stored exactly is refused")
        #expect(try await app("refresh", url, ["--account", "work"]).status == 0)
        #expect(try await app("me", url, ["--account", "personal"]).stdout.contains("Alice Liddell"))
        let out = try await app("signout", url, ["--account", "work"])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(try await status(["--account", "work"]) == 3)
        #expect(try await status(["--account", "personal"]) == 0, "signing one account out leaves the other")
        #expect(try await app("signin", url, ["--account", "work", "--username", "alice", "--password-stdin"], input: "wonderland\n")
            .status == 0)
        let all = try await sandbox.run(["signout", "--all", "--store", sandbox.store])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stdout.contains("personal:") && all.stdout.contains("work:"))
        #expect(try await status(["--account", "work"]) == 3)
        #expect(try await status(["--account", "personal"]) == 3)
        let listed = try await sandbox.run(["accounts", "--store", sandbox.store])
        #expect(listed.stdout == "no account has a session\n")
        #expect(try stats(url)["revocations"] == 3)
    }

    @Test func theHeaderContractWorksFromTheCommandLine() async throws {
        let (server, url) = try await sandbox.startServer(["--refresh-token-in-body", "--bare-authorization"])
        defer { _ = stop(server) }
        let signIn = try await app("signin", url, ["--style", "header", "--username", "alice", "--password-stdin"], input: "wonderland")
        #expect(signIn.status == 0, "\(signIn.stderr)")
        #expect(try await app("refresh", url, ["--style", "header"]).status == 0)
        let me = try await app("me", url, ["--style", "header"])
        #expect(me.status == 0)
        #expect(me.stdout.contains("Alice Liddell"))
        #expect(try stats(url)["refreshes"] == 1)
    }

    @Test func failuresHaveTheirOwnExitCodes() async throws {
        let (server, url) = try await sandbox.startServer()
        let wrong = try await app("signin", url, ["--username", "alice", "--password-stdin"], input: "not-it")
        #expect(wrong.status == 4)
        #expect(wrong.stderr.hasPrefix("hardtack: "))
        #expect(!wrong.stderr.contains("not-it"))
        #expect(try await app("me", url).status == 3)
        #expect(try await app("signin", url, ["--username", "alice", "--password-stdin"], input: "wonderland").status == 0)
        _ = stop(server)
        // The server is gone: the session is kept and the failure is temporary.
        let down = try await app("refresh", url)
        #expect(down.status == 69, "\(down.stderr)")
        #expect(try await sandbox.run(["status", "--store", sandbox.store]).status == 0)
        // Sign-out still deletes locally and says one true thing: not revoked, deleted here.
        let signOut = try await app("signout", url)
        #expect(signOut.status == 0)
        #expect(signOut.stdout.contains("signed out here, but not at the server"), "\(signOut.stdout)")
        #expect(signOut.stdout.contains("the local session was deleted"))
        #expect(!signOut.stdout.contains("kept"), "\(signOut.stdout)")
        #expect(try await sandbox.run(["status", "--store", sandbox.store]).status == 3)
    }

    @Test func aPasswordIsNeverTakenFromTheCommandLine() async throws {
        let result = try await sandbox.run(["signin", "--server", "http://127.0.0.1:9", "--username", "alice", "--password", "x"])
        #expect(result.status == 2)
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
    }

    @Test func statusOfAStoreThatCannotBeUnlockedIsNotSignedOut() async throws {
        let passphrase = sandbox.directory.file("pass")
        try FileBytes.write(Array("right\n".utf8), to: passphrase)
        chmod(passphrase, 0o600)
        let env = ["HARDTACK_ARGON2_COST": "interactive"]
        let created = try await sandbox.keychain(
            ["--passphrase-file", passphrase, "add-generic-password", "-s", "other", "-a", "item", "-w", "x"], environment: env)
        #expect(created.status == 0)
        #expect(try await sandbox.run(["status", "--store", sandbox.store, "--passphrase-file", passphrase], environment: env).status == 3)
        try FileBytes.write(Array("wrong\n".utf8), to: passphrase)
        let locked = try await sandbox.run(["status", "--store", sandbox.store, "--passphrase-file", passphrase], environment: env)
        #expect(locked.status == 77)
    }

    @Test func legacyMigrationSurvivesBeingKilledAtAnyMoment() async throws {
        let executable = try #require(HardtackExecutable.path)
        let legacy = sandbox.directory.file("preferences.json")
        let contents = #"{"Authorization": "Bearer legacyaccess", "refresh": "legacyrefresh", "theme": "dark"}"#
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<12 {
            try FileBytes.write(Array(contents.utf8), to: legacy)
            let victim = try sandbox.launch(executable, ["migrate-legacy", legacy, "--store", sandbox.store])
            try await Task.sleep(for: .microseconds(UInt32.random(in: 0...40_000, using: &generator)))
            kill(victim.process.processIdentifier, SIGKILL)
            _ = await victim.wait()
            let rerun = try await sandbox.run(["migrate-legacy", legacy, "--store", sandbox.store])
            #expect(rerun.status == 0, "\(rerun.stderr)")
            #expect(!FileManager.default.fileExists(atPath: legacy))
            #expect(try await sandbox.run(["status", "--store", sandbox.store]).status == 0)
        }
        for suffix in ["", "-wal", "-shm"] {
            let bytes = FileBytes.read(sandbox.store + suffix)
            #expect(!FileBytes.contains(bytes, Array("legacyrefresh".utf8)))
        }
        let again = try await sandbox.run(["migrate-legacy", legacy, "--store", sandbox.store])
        #expect(again.stdout.contains("nothing to migrate"))
    }

    @Test func headerStyleTokensExpireOnTheServedServerAndA401Refreshes() async throws {
        // Three seconds: JWT times are whole seconds, so a shorter token may have well under its
        // nominal life left. The refreshed one lives an hour, so that it outlives the retry on a loaded machine.
        let (server, url) = try await sandbox.startServer(["--access-token-lifetime", "3", "--refreshed-access-token-lifetime", "3600"])
        defer { _ = stop(server) }
        let header = ["--style", "header"]
        #expect(try await app("signin", url, header + ["--username", "alice", "--password-stdin"], input: "wonderland").status == 0)
        try await Task.sleep(for: .milliseconds(4100))
        let me = try await app("me", url, header)
        #expect(me.status == 0, "\(me.stderr)")
        #expect(me.stdout.contains("refreshes by this process: 1"))
        let counters = try stats(url)
        #expect(counters["unauthorized"] == 1)
        #expect(counters["refreshes"] == 1)
    }

    @Test func commandsThatOnlyReadNeverCreateAStore() async throws {
        let status = try await sandbox.run(["status", "--store", sandbox.store])
        #expect(status.status == 3)
        for command in ["me", "refresh", "signout"] {
            #expect(try await app(command, "http://127.0.0.1:9").status == 3, "\(command)")
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.store))
        #expect(!FileManager.default.fileExists(atPath: sandbox.keyFile))
    }

    @Test func theDemoSignsInWithTheCodeFlowAndTheDeviceGrantNotAPassword() async throws {
        let result = try await sandbox.run(["demo"])
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        #expect(out.contains("authorization code + PKCE"))
        #expect(out.contains("listening on http://127.0.0.1:") && out.contains("/callback"))
        #expect(out.contains("the scripted browser signed in as alice"))
        #expect(out.contains("ID token's RS256 signature"))
        #expect(out.contains("device grant, RFC 8628") && out.contains("/oauth/device, enter "))
        #expect(out.contains("they shared 1 refresh") && out.contains("reuse detections: 1"))
        #expect(out.contains("server: refresh token revoked"))
        #expect(!out.contains("with a password") && !out.contains("wonderland"))
        #expect(!out.contains("eyJ") && !result.stderr.contains("eyJ"))
    }

    @Test func theDemoSpeaksTheHeaderContractToo() async throws {
        let result = try await sandbox.run(["demo", "--style", "header"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("header-style contract"))
        #expect(result.stdout.contains("refused the expired token (401)"))
        #expect(result.stdout.contains("reuse detections: 1"))
    }

    @Test func theDemoRefusesAStoreThatHoldsASession() async throws {
        let (server, url) = try await sandbox.startServer()
        defer { _ = stop(server) }
        #expect(try await app("signin", url, ["--username", "alice", "--password-stdin"], input: "wonderland").status == 0)
        let demo = try await sandbox.run(["demo", "--store", sandbox.store])
        #expect(demo.status == 2)
        #expect(demo.stderr.contains("already holds a session"))
        #expect(try await sandbox.run(["status", "--store", sandbox.store]).status == 0)
    }
}
