import Foundation
import Testing

/// A session remembers the server, contract and client it was signed in with: later commands use them,
/// and refuse, touching nothing, when told otherwise.
@Suite(.serialized) struct SessionOriginTests {
    let sandbox = CLISandbox()

    func run(_ command: String, _ extra: [String] = [], input: String? = nil) async throws -> CLIResult {
        try await sandbox.run([command, "--store", sandbox.store] + extra, input: input)
    }

    @Test func aHeaderSessionIsRefreshedTheHeaderWayWithoutBeingTold() async throws {
        let (server, url) = try await sandbox.startServer(["--refresh-token-in-body"])
        defer { server.process.terminate() }
        let signIn = try await run(
            "signin", ["--server", url, "--style", "header", "--username", "alice", "--password-stdin"],
            input: "wonderland")
        #expect(signIn.status == 0, "\(signIn.stderr)")
        // No --server, no --style: both come from the session.
        let refresh = try await run("refresh")
        #expect(refresh.status == 0, "\(refresh.stderr)")
        #expect(try sandbox.serverStats(url)["refreshes"] == 1)
        let me = try await run("me")
        #expect(me.status == 0, "\(me.stderr)")
        #expect(me.stdout.contains("Alice Liddell"))

        // Told the other contract: refused, the session untouched (no refresh sent, still signed in).
        let oauth = try await run("refresh", ["--style", "oauth"])
        #expect(oauth.status == 2)
        #expect(oauth.stderr.contains("signed in with the header contract"), "\(oauth.stderr)")
        let elsewhere = try await run("signout", ["--server", "http://127.0.0.1:9"])
        #expect(elsewhere.status == 2)
        #expect(elsewhere.stderr.contains("signed in at \(url)"), "\(elsewhere.stderr)")
        let client = try await run("me", ["--client-id", "someone-else"])
        #expect(client.status == 2)
        let environment = try await sandbox.run(
            ["refresh", "--store", sandbox.store], environment: ["HARDTACK_SERVER": "http://127.0.0.1:9"])
        #expect(environment.status == 2)
        #expect(try sandbox.serverStats(url)["refreshes"] == 1)
        #expect(try await run("status").status == 0)

        // Told the same thing it remembers (another spelling of the URL): fine.
        #expect(try await run("refresh", ["--server", url.uppercased().replacingOccurrences(of: "HTTP:", with: "http:") + "/", "--style", "header"]).status == 0)
        let signOut = try await run("signout")
        #expect(signOut.status == 0, "\(signOut.stderr)")
        #expect(try sandbox.serverStats(url)["revocations"] == 1)
    }

    @Test func anOAuthSessionRefreshedWithHeaderStyleIsRefusedNotDegraded() async throws {
        let (server, url) = try await sandbox.startServer()
        defer { server.process.terminate() }
        #expect(try await run("signin", ["--server", url, "--username", "alice", "--password-stdin"], input: "wonderland").status == 0)
        #expect(try await run("refresh", ["--style", "header"]).status == 2)
        let status = try await run("status")
        #expect(status.status == 0)
        #expect(!status.stdout.contains("expiry unknown"), "\(status.stdout)")
    }
}

/// Sign-out and sign-in around the server: one true sentence, the replaced session revoked, and no store
/// made by a command that failed or had nothing to do.
@Suite(.serialized) struct SignInAroundTheServerTests {
    let sandbox = CLISandbox()

    @Test func signingInAgainRevokesTheReplacedRefreshToken() async throws {
        let (server, url) = try await sandbox.startServer()
        defer { server.process.terminate() }
        let arguments = ["signin", "--store", sandbox.store, "--server", url, "--username", "alice", "--password-stdin"]
        #expect(try await sandbox.run(arguments, input: "wonderland").status == 0)
        #expect(try sandbox.serverStats(url)["revocations"] == 0)
        #expect(try await sandbox.run(arguments, input: "wonderland").status == 0)
        #expect(try sandbox.serverStats(url)["revocations"] == 1)
        #expect(try await sandbox.run(["me", "--store", sandbox.store]).status == 0)
        // Signed in again under the other contract at the same server: the replaced OAuth session is
        // revoked in its own contract, not left live.
        #expect(try await sandbox.run(arguments + ["--style", "header"], input: "wonderland").status == 0)
        #expect(try sandbox.serverStats(url)["revocations"] == 2)
        #expect(try await sandbox.run(["me", "--store", sandbox.store]).status == 0)
    }

    @Test func aFailedSignInOrAMissingLegacyFileCreatesNoStore() async throws {
        let down = try await sandbox.run(
            ["signin", "--store", sandbox.store, "--server", "http://127.0.0.1:9", "--username", "alice",
             "--password-stdin"], input: "wonderland")
        #expect(down.status == 69, "\(down.stderr)")
        let parent = (sandbox.store as NSString).deletingLastPathComponent
        #expect(!FileManager.default.fileExists(atPath: parent), "left behind: \(parent)")
        let migrate = try await sandbox.run(["migrate-legacy", "--store", sandbox.store, sandbox.directory.file("none.json")])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        #expect(migrate.stdout.contains("nothing to migrate"))
        #expect(!FileManager.default.fileExists(atPath: parent))
    }
}
