import Foundation
import TestSupport
import Testing

/// `hardtack gateway sessions` and `revoke` over a running gateway's store: two users signed in through
/// the Authlib provider, listed without a token, and ended one by one while the gateway serves.
extension GatewayScenarios {
    @Suite struct GatewaySessionsTests {
        let sandbox = CLISandbox()

        func run(_ arguments: [String]) async throws -> CLIResult {
            try await sandbox.run(["gateway"] + arguments + ["--store", sandbox.store])
        }

        func sid(_ browser: TestBrowser, _ origin: String) async throws -> String {
            let user = try await browser.get(origin + "/bff/user", headers: [("X-CSRF", "1")])
            return try #require((try JSONSerialization.jsonObject(with: user.body) as? [String: String])?["sid"])
        }

        @Test func operatorsListAndEndSessionsThatTheRunningGatewayThenRefuses() async throws {
            let provider = try TestProvider()
            let (gateway, origin) = try await sandbox.startGateway(
                issuer: provider.issuer, routes: ["/api/=\(provider.issuer)/api/"])
            defer { _ = sandbox.stopGatewayNow(gateway) }
            let alice = TestBrowser()
            let bob = TestBrowser()
            _ = try await alice.signIn(gateway: origin, user: "alice", password: "wonderland")
            _ = try await bob.signIn(gateway: origin, user: "bob", password: "builder")
            let aliceSid = try await sid(alice, origin)
            let bobSid = try await sid(bob, origin)

            let listed = try await run(["sessions", "--json"])
            #expect(listed.status == 0, "\(listed.stderr)")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
            let sessions = try #require(document["sessions"] as? [[String: Any]])
            #expect(Set(sessions.compactMap { $0["session"] as? String }) == [aliceSid, bobSid])
            let aliceEntry = try #require(sessions.first { $0["session"] as? String == aliceSid })
            #expect((aliceEntry["user"] as? [String: String])?["id"] == "alice")
            #expect(aliceEntry["signedInAt"] is String && aliceEntry["expiresAt"] != nil)
            #expect(aliceEntry["lastUsedAt"] is String, "the sign-in recorded a use")
            let cookies = [alice.cookies(for: origin)["__Host-hardtack"], bob.cookies(for: origin)["__Host-hardtack"]]
            let tokens = try await provider.issuedTokens(CLISandbox.gatewayClient.id)
            #expect(!tokens.isEmpty)
            for text in await [listed.stdout, try run(["sessions"]).stdout] {
                for token in tokens { #expect(!text.contains(token), "no token") }
                for cookie in cookies.compactMap({ $0 }) { #expect(!text.contains(cookie), "no cookie") }
            }
            let onlyBob = try await run(["sessions", "--user", "bob"])
            #expect(onlyBob.stdout.contains(bobSid) && !onlyBob.stdout.contains(aliceSid), "\(onlyBob.stdout)")
            #expect(onlyBob.stdout.contains("bob (Bob Builder)"))
            // The provider gives its refresh tokens no lifetime: the end is said as the token's, not "never".
            #expect(onlyBob.stdout.contains(" · refresh token without an end"), "\(onlyBob.stdout)")

            // Alice's session is kept in memory by now (two calls with nothing committed between them)...
            #expect(try await alice.get(origin + "/api/echo/me", headers: [("X-CSRF", "1")]).status == 200)
            #expect(try await alice.get(origin + "/api/echo/me", headers: [("X-CSRF", "1")]).status == 200)
            let metrics = String(decoding: try await alice.get(origin + "/metrics").body, as: UTF8.self)
            let fromMemory = metrics.split(separator: "\n").first { $0.hasPrefix("hardtack_gateway_session_reads_total{source=\"memory\"}") }
            #expect((fromMemory?.split(separator: " ").last).flatMap { Int($0) } ?? 0 > 0, "\(metrics)")
            // ...and still, one session ended by id in another process: the gateway refuses it at the next
            // call; the other user goes on.
            let bySession = try await run(["revoke", "--session", aliceSid])
            #expect(bySession.status == 0 && bySession.stdout == "ended 1 session\n", "\(bySession.stdout)\(bySession.stderr)")
            #expect(try await alice.get(origin + "/bff/user", headers: [("X-CSRF", "1")]).status == 401)
            #expect(try await alice.get(origin + "/api/echo/me", headers: [("X-CSRF", "1")]).status == 401)
            #expect(try await bob.get(origin + "/api/echo/me", headers: [("X-CSRF", "1")]).status == 200)

            // Every session of a user; again ends nothing, and is no error.
            #expect(try await run(["revoke", "--user", "bob"]).stdout == "ended 1 session\n")
            #expect(try await bob.get(origin + "/api/echo/me", headers: [("X-CSRF", "1")]).status == 401)
            #expect(try await run(["revoke", "--user", "bob"]).stdout == "ended 0 sessions\n")
            #expect(try await run(["sessions"]).stdout == "no gateway session\n")

            let both = try await run(["revoke", "--user", "bob", "--session", bobSid])
            #expect(both.status == 2 && both.stderr.contains("exactly one of --user SUB and --session SID"))
            #expect(try await run(["revoke"]).status == 2)
            // The server's options before another gateway command are refused, not ignored.
            let misplaced = try await sandbox.run(["gateway", "--issuer", provider.issuer, "sessions", "--store", sandbox.store])
            #expect(misplaced.status == 2 && misplaced.stderr.contains("--issuer is an option of the gateway's server"))
        }

        @Test func withoutAStoreThereIsNothingToListOrEnd() async throws {
            let store = ["--store", sandbox.directory.file("none/keychain.db")]
            let listed = try await sandbox.run(["gateway", "sessions"] + store)
            #expect(listed.status == 0 && listed.stdout == "no gateway session\n", "\(listed.stderr)")
            let revoked = try await sandbox.run(["gateway", "revoke", "--user", "alice"] + store)
            #expect(revoked.status == 0 && revoked.stdout == "ended 0 sessions\n", "\(revoked.stderr)")
            #expect(!FileManager.default.fileExists(atPath: sandbox.directory.file("none/keychain.db")), "none was made")
            let help = try await sandbox.run(["gateway", "serve", "--help"])
            #expect(help.status == 0 && help.stdout.contains("HARDTACK_GATEWAY_ISSUER") && help.stdout.contains("--issuer URL"))
        }
    }
}
