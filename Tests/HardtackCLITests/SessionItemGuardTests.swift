import Foundation
import Testing

/// The keychain verbs never write or delete a session's items (or the gateway's): only signin, refresh
/// and signout do, since they revoke what they replace and respect a refresh in flight.
@Suite struct SessionItemGuardTests {
    let sandbox = CLISandbox()

    @Test func addAndDeleteRefuseASessionsItemsAndPointAtSignout() async throws {
        let (server, url) = try await sandbox.startServer()
        defer {
            server.process.terminate()
            _ = server.waitAfterStop()
        }
        let signIn = try await sandbox.run(
            ["signin", "--server", url, "--store", sandbox.store, "--username", "alice", "--password-stdin"],
            input: "wonderland\n")
        #expect(signIn.status == 0, "\(signIn.stderr)")
        let attempts = [
            ["add-generic-password", "-s", "hardtack.session", "-a", "refresh-token", "-w", "forged", "-U"],
            ["add-generic-password", "-s", "hardtack.session/work", "-a", "refresh-token", "-w", "forged"],
            ["delete-generic-password", "-s", "hardtack.session"],
            ["delete-generic-password", "-s", "hardtack.session", "-a", "access-token"],
            // No service named, but the query matches the session's items: nothing is deleted.
            ["delete-generic-password", "-a", "refresh-token"],
        ]
        for arguments in attempts {
            let result = try await sandbox.keychain(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("hardtack signout"), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("nothing was changed"), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("forged"))
        }
        // The session is whole: still signed in, and an authorized call still works with its tokens.
        #expect(try await sandbox.run(["status", "--store", sandbox.store]).status == 0)
        #expect(try await sandbox.run(["me", "--server", url, "--store", sandbox.store]).status == 0)
        let dump = try await sandbox.keychain(["dump", "--json"])
        #expect(dump.stdout.components(separatedBy: "\"hardtack.session\"").count - 1 == 3, "\(dump.stdout)")
    }

    @Test func theGatewaysOwnItemsAreRefusedToo() async throws {
        for service in ["hardtack.gateway", "hardtack.gateway.logout-token"] {
            let added = try await sandbox.keychain(["add-generic-password", "-s", service, "-a", "login-state-key", "-w", "k"])
            #expect(added.status == 2, "\(added.stderr)")
            #expect(added.stderr.contains("gateway"))
            #expect(added.stderr.contains("nothing was changed"))
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.store), "a refused add creates no store")
        // A service that only begins like one of them is anybody's.
        try await sandbox.addGeneric(service: "hardtack.sessions-backup", account: "a", secret: "s")
        #expect(try await sandbox.keychain(["delete-generic-password", "-s", "hardtack.sessions-backup"]).status == 0)
    }
}
