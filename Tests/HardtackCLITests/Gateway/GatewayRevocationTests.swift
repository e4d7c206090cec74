import Data
import Foundation
import TestSupport
import Testing

/// `hardtack gateway --revoke-ended-sessions`: the refresh tokens of sessions that ended without their cookie
/// (a back-channel logout, an operator's `gateway revoke`) revoked at the issuer.
extension GatewayScenarios {
    @Suite struct GatewayRevocationTests {
        let sandbox = CLISandbox()
        let browser = TestBrowser()

        /// A gateway of `provider`'s, routing `/api/` to its echo API, started with `extra`.
        func gateway(_ provider: TestProvider, extra: [String]) async throws -> (RunningProcess, String) {
            try await sandbox.startGateway(
                issuer: provider.issuer, routes: ["/api/=\(provider.issuer)/api/"], extra: extra)
        }

        /// How many refresh tokens `provider` holds active.
        func activeRefreshTokens(_ provider: TestProvider) async throws -> Int {
            (try await provider.state()["refresh_tokens"] as? [String: Int])?["active"] ?? -1
        }

        /// The gateway client's revocations at `provider`: as they arrived, and as it carried them out.
        func revocationCounts(_ provider: TestProvider) async throws -> (arrived: Int, revoked: Int) {
            let state = try await provider.state()
            let client = CLISandbox.gatewayClient.id
            return (
                (state["revocation_requests_by_client"] as? [String: Int])?[client] ?? 0,
                (state["revocations_by_client"] as? [String: Int])?[client] ?? 0
            )
        }

        /// Holds the gateway client's next revocation at `provider` while `body` runs, and releases it after,
        /// whatever `body` did: a hold left armed would hold a later test's revocation (until that gateway's
        /// call to the issuer times out).
        func holdingTheNextRevocation<T>(_ provider: TestProvider, _ body: () async throws -> T) async throws -> T {
            try await provider.control(
                "/test/revocation-hold", [("client_id", CLISandbox.gatewayClient.id), ("hold", "next")])
            do {
                let value = try await body()
                try await releaseTheRevocation(provider)
                return value
            } catch {
                try? await releaseTheRevocation(provider)
                throw error
            }
        }

        /// Releases (or disarms) the gateway client's held revocation at `provider`, from a task of its own, so
        /// that a test cancelled at its time limit still does (a cancelled task's HTTP call ends at once).
        func releaseTheRevocation(_ provider: TestProvider) async throws {
            try await Task.detached {
                _ = try await provider.control(
                    "/test/revocation-hold", [("client_id", CLISandbox.gatewayClient.id), ("hold", "none")])
            }.value
        }

        /// Stops `gateway` with SIGTERM while `provider` holds its revocation: once it said it stops, gives it
        /// a second in which it must not exit (its stop waits for the revocation), then lets the issuer answer
        /// and waits for the exit (at most 120 s: its stop takes 70 s at most). Whether it exited within that
        /// second, and how it ended. Releases the revocation whatever happens.
        func stopWhileTheRevocationIsHeld(_ gateway: RunningProcess, _ provider: TestProvider) async throws
            -> (exitedWhileHeld: Bool, result: CLIResult)
        {
            kill(gateway.process.processIdentifier, SIGTERM)
            let said: Bool?
            let exited: Bool
            do {
                said = try await gateway.awaitOutput { $0.errorsSoFar.contains("stopping: ") ? true : nil }
                exited = try await gateway.awaitOutput(bound: 1) { $0.process.isRunning ? nil : true } != nil
                try await releaseTheRevocation(provider)
            } catch {
                try? await releaseTheRevocation(provider)
                throw error
            }
            try #require(said != nil, "the gateway said it stops: \(gateway.errorsSoFar.suffix(600))")
            let ended = try await gateway.awaitOutput(bound: 120) { $0.process.isRunning ? nil : true }
            try #require(ended != nil, "the gateway exited within 120 s of its stop: \(gateway.errorsSoFar.suffix(600))")
            return (exited, await gateway.wait())
        }

        /// With `--revoke-ended-sessions`, a back-channel logout also revokes the ended session's refresh token
        /// at the issuer (which, here, ended its own session without revoking anything); the other user's
        /// token is not touched, and the log says what was revoked, never a token.
        @Test func withCopiesKeptABackChannelLogoutRevokesTheEndedSessionsToken() async throws {
            let provider = try TestProvider()
            let (gateway, origin) = try await gateway(provider, extra: ["--revoke-ended-sessions"])
            let bob = TestBrowser()
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            _ = try await bob.signIn(gateway: origin, user: "bob", password: "builder")
            let client = CLISandbox.gatewayClient.id
            func revocations() async throws -> Int {
                (try await provider.state()["revocations_by_client"] as? [String: Int])?[client] ?? 0
            }
            let before = try await revocations()
            let active = try await activeRefreshTokens(provider)
            try await provider.control("/test/backchannel-uri", [("uri", origin + "/bff/backchannel")])
            let sent = try await provider.control("/test/end-session", [("sub", "alice"), ("revoke_tokens", "no")])
            try await provider.control("/test/backchannel-uri", [("uri", "")])
            #expect(sent["status"] as? Int == 200, "\(sent)")
            // The revocation follows the logout's answer; bounded at 60 s only against a hang.
            var after = before
            _ = try await Eventually.wait(every: .milliseconds(100)) {
                after = try await revocations()
                return after != before
            }
            #expect(after == before + 1, "alice's refresh token revoked, once: \(after - before) revocations")
            #expect(try await activeRefreshTokens(provider) == active - 1, "her current token, not an older one")
            #expect(try await browser.get(origin + "/bff/user", headers: [("X-CSRF", "1")]).status == 401)
            #expect(try await bob.get(origin + "/api/echo", headers: [("X-CSRF", "1")]).status == 200, "bob goes on")
            let alicesTokens = try await provider.issuedTokens(client)
            let result = await sandbox.stopGateway(gateway)
            // Said to follow the back-channel logout: the first sweep, 5 to 30 s after the start, could revoke it
            // too within the wait above, and says so.
            #expect(
                result.stderr.contains(#""event":"revocation","after":"backchannel_logout","revoked":1,"#),
                "\(result.stderr.suffix(600))")
            for token in alicesTokens { #expect(!result.stderr.contains(token), "no token in the log") }
        }

        /// An operator's `gateway revoke` ends the session on every instance at once; a running gateway with
        /// `--revoke-ended-sessions` then revokes its refresh token at its next sweep (here every second): a
        /// second user's too, revoked once the first's was, when the next sweep at the default interval would
        /// be minutes away.
        @Test func anOperatorsRevokeIsRevokedAtTheIssuerByTheNextSweep() async throws {
            let provider = try TestProvider()
            let (gateway, origin) = try await gateway(provider, extra: ["--revoke-ended-sessions", "--sweep-interval", "1"])
            defer { _ = sandbox.stopGatewayNow(gateway) }
            let bob = TestBrowser()
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            _ = try await bob.signIn(gateway: origin, user: "bob", password: "builder")
            // Each bounded at 60 s only against a hang. At the default interval the first sweep comes 5 to 30 s
            // after the start and the next not for 270 s, so only the second user's revocation tells the
            // interval's effect.
            for (user, client) in [("alice", browser), ("bob", bob)] {
                let active = try await activeRefreshTokens(provider)
                let revoke = try await sandbox.run(["gateway", "revoke", "--user", user, "--store", sandbox.store])
                #expect(revoke.status == 0 && revoke.stdout == "ended 1 session\n", "\(revoke.stderr)")
                var now = active
                _ = try await Eventually.wait(every: .milliseconds(100)) {
                    now = try await activeRefreshTokens(provider)
                    return now != active
                }
                #expect(now == active - 1, "the sweep revoked \(user)'s refresh token: \(active) active before, \(now) after")
                #expect(try await client.get(origin + "/bff/user", headers: [("X-CSRF", "1")]).status == 401)
            }
            // Each revocation is logged once the issuer has answered it, which may come after its count: waited
            // for, bounded at 60 s only against a hang.
            let logged = try await gateway.awaitOutput { gateway in
                let lines = gateway.errorsSoFar.split(separator: "\n").filter {
                    $0.hasPrefix(#"{"event":"revocation","after":"sweep","revoked":1,"#)
                }
                return lines.count >= 2 ? lines.count : nil
            }
            #expect(logged == 2, "each revocation said to follow a sweep: \(gateway.errorsSoFar.suffix(600))")
        }

        /// A stop right after a back-channel logout was answered: the revocation that follows the answer is
        /// not cut by the exit. The stop waits for it (held at the issuer until then), and it is logged and
        /// carried out before the gateway exits 0.
        @Test func aStopRightAfterABackChannelLogoutWaitsForItsRevocation() async throws {
            let provider = try TestProvider()
            let (gateway, origin) = try await gateway(provider, extra: ["--revoke-ended-sessions"])
            defer { if gateway.process.isRunning { _ = sandbox.stopGatewayNow(gateway) } }
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            let before = try await revocationCounts(provider)
            let (stopped, sent) = try await holdingTheNextRevocation(provider) {
                try await provider.control("/test/backchannel-uri", [("uri", origin + "/bff/backchannel")])
                let sent = try await provider.control("/test/end-session", [("sub", "alice"), ("revoke_tokens", "no")])
                try await provider.control("/test/backchannel-uri", [("uri", "")])
                // The revocation is held at the issuer: stop now. Bounded at 60 s only against a hang.
                let arrived = try await Eventually.wait(every: .milliseconds(20)) {
                    try await revocationCounts(provider).arrived > before.arrived
                }
                try #require(arrived, "a revocation reached the issuer: \(sent)")
                return (try await stopWhileTheRevocationIsHeld(gateway, provider), sent)
            }
            #expect(sent["status"] as? Int == 200, "\(sent)")
            #expect(!stopped.exitedWhileHeld, "the stop waited for the revocation: \(stopped.result.stderr.suffix(600))")
            #expect(stopped.result.status == 0, "\(stopped.result.stderr.suffix(600))")
            // Said to follow the back-channel logout, or (rarely, 5 to 30 s after the start) the first sweep.
            #expect(
                stopped.result.stderr.contains(#""event":"revocation","after":"#)
                    && stopped.result.stderr.contains(#"","revoked":1,"#),
                "the revocation was answered and logged before the exit: \(stopped.result.stderr.suffix(600))")
            let atStop = try await revocationCounts(provider)
            #expect(atStop.revoked == before.revoked + 1 && atStop.arrived == before.arrived + 1, "sent once, carried out")
        }

        /// A stop during a sweep's revocation: the send under way (held at the issuer until the gateway said it
        /// stops) is answered and recorded, no other starts, and the gateway exits 0 once it is done (the stop
        /// waits for the sweep, so its exit cuts no store write and no call to the issuer). The next start sends
        /// only what is left: each token once. Both users' sessions are revoked while no gateway runs, so that
        /// the first sweep after the start holds both copies.
        @Test func aStopDuringASweepsRevocationFinishesTheSendUnderWayAndStartsNoOther() async throws {
            let provider = try TestProvider()
            let revoking = ["--revoke-ended-sessions", "--sweep-interval", "1"]
            let (first, origin) = try await gateway(provider, extra: revoking)
            let bob = TestBrowser()
            do {
                defer { if first.process.isRunning { _ = sandbox.stopGatewayNow(first) } }
                _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
                _ = try await bob.signIn(gateway: origin, user: "bob", password: "builder")
                let stopped = await sandbox.stopGateway(first)
                #expect(stopped.status == 0, "\(stopped.stderr.suffix(600))")
            }
            for user in ["alice", "bob"] {
                let revoke = try await sandbox.run(["gateway", "revoke", "--user", user, "--store", sandbox.store])
                #expect(revoke.status == 0, "\(revoke.stderr)")
            }
            let before = try await revocationCounts(provider)
            let stopped = try await holdingTheNextRevocation(provider) {
                let (gateway, _) = try await self.gateway(provider, extra: revoking)
                defer { if gateway.process.isRunning { _ = sandbox.stopGatewayNow(gateway) } }
                // The first sweep's first send is held at the issuer: stop now. Bounded at 60 s only against a hang.
                let arrived = try await Eventually.wait(every: .milliseconds(20)) {
                    try await revocationCounts(provider).arrived > before.arrived
                }
                try #require(arrived, "a revocation reached the issuer")
                return try await stopWhileTheRevocationIsHeld(gateway, provider)
            }
            let stderr = stopped.result.stderr.suffix(600)
            #expect(!stopped.exitedWhileHeld, "the stop waited for the sweep: \(stderr)")
            #expect(stopped.result.status == 0, "\(stderr)")
            #expect(
                stopped.result.stderr.contains(#"{"event":"revocation","after":"sweep","revoked":1,"#)
                    && stopped.result.stderr.contains(#""deferred":1,"stopping":true}"#),
                "the send under way was answered and recorded, the other left: \(stderr)")
            #expect(!stopped.result.stderr.contains("lastFailure"), "nothing was cut: \(stderr)")
            let atStop = try await revocationCounts(provider)
            #expect(atStop.arrived == before.arrived + 1, "no other send started once the stop began")
            #expect(atStop.revoked == before.revoked + 1, "the one sent was carried out before the gateway exited")

            // The next start's first sweep (within a second) sends the other user's, and not the one sent before.
            let (again, _) = try await self.gateway(provider, extra: revoking)
            defer { _ = sandbox.stopGatewayNow(again) }
            var after = atStop
            _ = try await Eventually.wait(every: .milliseconds(100)) {
                after = try await revocationCounts(provider)
                return after.revoked > atStop.revoked
            }
            #expect(after.revoked == before.revoked + 2, "the other user's token revoked at the next start")
            #expect(after.arrived == before.arrived + 2, "each token sent once")
        }
    }
}
