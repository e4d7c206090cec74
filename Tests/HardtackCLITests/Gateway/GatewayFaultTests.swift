import Data
import Foundation
import TestSupport
import Testing

/// `hardtack gateway` under bad input and faults: a clear status and a JSON error body every time, never a
/// crash, a hang or a lost session; and the issuer ending sessions over the back channel.
extension GatewayScenarios {
    @Suite struct GatewayFaultTests {
        let sandbox = CLISandbox()
        let browser = TestBrowser()

        func gateway(
            _ provider: TestProvider, routes: [String]? = nil, extra: [String] = []
        ) async throws -> (RunningProcess, String) {
            try await sandbox.startGateway(
                issuer: provider.issuer, routes: routes ?? ["/api/=\(provider.issuer)/api/"], extra: extra)
        }

        func errorCode(_ response: HTTPResponse) -> String? {
            (try? JSONSerialization.jsonObject(with: response.body) as? [String: String])?["error"]
        }

        /// Sessions on a PostgreSQL store whose server stops: `/healthz` and a session's calls are 503 (the
        /// session kept, the cookie too), and once the server is back every session answers again.
        @Test func aStoreThatStopsAnsweringIs503AndNoSessionIsLost() async throws {
            let provider = try TestProvider()
            let database = try await OwnPostgreSQLServer.start(scratch: sandbox.directory.path)
            defer { database.stop() }
            let (gateway, origin) = try await sandbox.startGateway(
                issuer: provider.issuer, routes: ["/api/=\(provider.issuer)/api/"], store: database.uri,
                extra: ["--key-env", "PG_KEY"], environment: ["PG_KEY": String(repeating: "6b", count: 32)])
            defer { _ = sandbox.stopGatewayNow(gateway) }
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            #expect(try await browser.get(origin + "/healthz").status == 200)
            #expect(try await browser.get(origin + "/bff/user", headers: [("X-CSRF", "1")]).status == 200)

            #expect(try await database.crash().status == 0)
            let health = try await browser.get(origin + "/healthz")
            #expect(health.status == 503 && errorCode(health) == "store_unavailable")
            let user = try await browser.get(origin + "/bff/user", headers: [("X-CSRF", "1")])
            #expect(user.status == 503, "\(String(decoding: user.body, as: UTF8.self))")
            #expect(user.headers["Set-Cookie"] == nil, "the cookie is kept")

            #expect(try await database.restart().status == 0)
            // Bounded at 60 s only against a hang: how soon the gateway finds the server again is not the point.
            var back = 0
            _ = try await Eventually.wait(every: .milliseconds(100)) {
                back = try await browser.get(origin + "/healthz").status
                return back == 200
            }
            #expect(back == 200, "/healthz still answers \(back) 60 s after the server came back")
            #expect(try await browser.get(origin + "/bff/user", headers: [("X-CSRF", "1")]).status == 200)
            #expect(try await browser.get(origin + "/api/echo", headers: [("X-CSRF", "1")]).status == 200)
        }

        @Test func badInputGetsAClearStatusAndNeverA500() async throws {
            let provider = try TestProvider()
            let (gateway, origin) = try await gateway(provider)
            defer { _ = sandbox.stopGatewayNow(gateway) }
            for bad in ["https://evil.example/", "//evil.example", "/%5Cevil.example", "/a%0d%0aSet-Cookie:%20x=1"] {
                let response = try await browser.get(origin + "/bff/login?returnUrl=" + bad)
                #expect(response.status == 400 && errorCode(response) == "invalid_return_url", "\(bad)")
            }
            // A callback nobody asked for, and one whose state was changed.
            #expect(try await browser.get(origin + "/bff/callback?code=x&state=y").status == 400)
            let login = try await browser.get(origin + "/bff/login?returnUrl=/")
            let state = try #require(
                URLComponents(string: login.headers["Location"] ?? "")?.queryItems?.first { $0.name == "state" }?.value)
            let forged = try await browser.get(
                origin + "/bff/callback?code=x&state=" + String(state.reversed()) + "&iss=" + provider.issuer)
            #expect(forged.status == 400, "\(String(decoding: forged.body, as: UTF8.self))")
            // Tampered and malformed cookies are no session: 401, never 500.
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            let real = try #require(browser.cookies(for: origin)["__Host-hardtack"])
            var flipped = Array(real)
            flipped[50] = flipped[50] == "A" ? "B" : "A"
            for value in [String(flipped), String(real.dropLast(3)), "x", String(repeating: "A", count: 64)] {
                let other = TestBrowser()
                other.setCookie("__Host-hardtack", value, for: origin)
                let answer = try await other.get(origin + "/api/echo", headers: [("X-CSRF", "1")])
                #expect(answer.status == 401 && errorCode(answer) == "not_signed_in", "\(value.prefix(8))")
            }
            #expect(try await browser.get(origin + "/nothing-here").status == 404)
            #expect(try await browser.get(origin + "/bff/nothing").status == 404)
            #expect(try await browser.send("POST", origin + "/bff/user", headers: [("X-CSRF", "1")]).status == 405)
            #expect(try await browser.send("DELETE", origin + "/healthz").status == 405)
            #expect(try await browser.send("POST", origin + "/metrics").status == 405)
            // Methods: one that is no HTTP token is 400; a CONNECT is no tunnel; a TRACE through a route, which
            // would echo the bearer back, never reaches the upstream.
            let port = try #require(URL(string: origin)?.port)
            let cookie = try #require(browser.cookies(for: origin)["__Host-hardtack"])
            for (line, status) in [
                ("G@T /healthz", "400"), ("\u{1}\u{2} / ", "400"), ("CONNECT /healthz", "405"),
                ("TRACE /api/echo", "405"), ("TRACK /api/echo", "405"), ("CONNECT /api/echo", "405"),
            ] {
                let raw = line + " HTTP/1.1\r\nHost: x\r\nX-CSRF: 1\r\nCookie: __Host-hardtack=\(cookie)\r\nConnection: close\r\n\r\n"
                let reply = await RawSocket.exchange(port: UInt16(port), sending: Array(raw.utf8))
                #expect(reply.hasPrefix("HTTP/1.1 \(status)"), "\(line): \(reply.prefix(60))")
                #expect(!reply.contains("Bearer"), "\(line)")
                if line.hasSuffix("/api/echo") {
                    // The gateway's own refusal, not the upstream's.
                    #expect(reply.contains("use GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"), "\(line): \(reply)")
                }
            }
            // Oversized head and body.
            let head =
                "GET /bff/user HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 64 * 1024) + "\r\n\r\n"
            #expect(await RawSocket.exchange(port: UInt16(port), sending: Array(head.utf8)).hasPrefix("HTTP/1.1 431"))
            // Cookies past the head's limit: the server's own 431, in JSON.
            let cookies = "GET /bff/user HTTP/1.1\r\nHost: x\r\nCookie: a=" + String(repeating: "b", count: 9_000) + "\r\n\r\n"
            let tooLarge = await RawSocket.exchange(port: UInt16(port), sending: Array(cookies.utf8))
            #expect(tooLarge.hasPrefix("HTTP/1.1 431") && tooLarge.contains("request_head_too_large"), "\(tooLarge.prefix(80))")
            let big = try await browser.send(
                "POST", origin + "/api/echo", headers: [("X-CSRF", "1")], body: Data(count: 2 << 20))
            #expect(big.status == 413)
            // The session survived all of it.
            #expect(try await browser.get(origin + "/bff/user", headers: [("X-CSRF", "1")]).status == 200)
            // What the server answered itself is logged too, one line each (written at the end of the loop's pass).
            let refusals = [
                #"{"method":"G@T","ms":0.000,"path":"/healthz","route":"refused","status":400}"#,
                #"{"method":"POST","ms":0.000,"path":"/api/echo","route":"refused","status":413}"#,
                #"{"method":"GET","ms":0.000,"path":"/bff/user","route":"refused","status":431}"#,
            ]
            let log =
                try await gateway.awaitOutput(bound: 60) { refusals.allSatisfy($0.errorsSoFar.contains) ? $0.errorsSoFar : nil }
                ?? gateway.errorsSoFar
            for line in refusals { #expect(log.contains(line), "\(line)") }
        }

        @Test func upstreamsThatAreDownOrSlowAre502And504AndTheSessionStays() async throws {
            let provider = try TestProvider()
            let (silent, silentPort) = RawSocket.silentListener()
            defer { close(silent) }
            let closedPort = CLISandbox.freePort()
            let (gateway, origin) = try await gateway(
                provider,
                routes: [
                    "/api/=\(provider.issuer)/api/", "/down/=http://127.0.0.1:\(closedPort)/",
                    "/silent/=http://127.0.0.1:\(silentPort)/",
                ], extra: ["--upstream-timeout", "1"])
            defer { _ = sandbox.stopGatewayNow(gateway) }
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            let down = try await browser.get(origin + "/down/x", headers: [("X-CSRF", "1")])
            #expect(down.status == 502 && errorCode(down) == "upstream_unreachable")
            let slow = try await browser.get(origin + "/api/slow?ms=3000", headers: [("X-CSRF", "1")])
            #expect(slow.status == 504 && errorCode(slow) == "upstream_timeout")
            #expect(try await browser.get(origin + "/silent/x", headers: [("X-CSRF", "1")]).status == 504)
            #expect(try await browser.get(origin + "/bff/user", headers: [("X-CSRF", "1")]).status == 200)
        }

        @Test func theIssuerDownDuringARefreshIs503AndKeepsTheSessionARejectedRefreshEndsIt() async throws {
            let provider = try TestProvider()
            try await provider.control(
                "/test/access-token-lifetime", [("client_id", CLISandbox.gatewayClient.id), ("seconds", "1")])
            let (gateway, origin) = try await gateway(provider)
            defer { _ = sandbox.stopGatewayNow(gateway) }
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            try await provider.control(
                "/test/access-token-lifetime", [("client_id", CLISandbox.gatewayClient.id), ("seconds", "default")])
            try await Task.sleep(for: .milliseconds(1500))
            try await provider.control("/test/token-endpoint", [("fail", "503")])
            let unavailable = try await browser.get(origin + "/api/echo", headers: [("X-CSRF", "1")])
            #expect(unavailable.status == 503 && errorCode(unavailable) == "issuer_unavailable")
            try await provider.control("/test/token-endpoint", [("fail", "none")])
            // After a refresh the issuer did not answer, the session's next one waits 0.5 s (calls meanwhile
            // answer 503 without asking it); then the session works again.
            try await Task.sleep(for: .milliseconds(600))
            #expect(
                try await browser.get(origin + "/api/echo", headers: [("X-CSRF", "1")]).status == 200,
                "the session was kept")

            // The issuer ends the session (its tokens revoked): the next refresh is refused, the session ends.
            let user = try await browser.get(origin + "/bff/user", headers: [("X-CSRF", "1")])
            #expect(user.status == 200)
            try await provider.control("/test/end-session", [("sub", "alice")])
            try await provider.control(
                "/test/access-token-lifetime", [("client_id", CLISandbox.gatewayClient.id), ("seconds", "default")])
            let ended = try await browser.get(origin + "/api/echo", headers: [("X-CSRF", "1")])
            #expect(ended.status == 401, "\(String(decoding: ended.body, as: UTF8.self))")
            #expect(browser.cookies(for: origin)["__Host-hardtack"] == nil, "the cookie is cleared")
        }

        @Test func backChannelLogoutEndsTheNamedSessionsOnceAndRefusesForgeries() async throws {
            let provider = try TestProvider()
            let (gateway, origin) = try await gateway(provider)
            defer { _ = sandbox.stopGatewayNow(gateway) }
            let bob = TestBrowser()
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            _ = try await bob.signIn(gateway: origin, user: "bob", password: "builder")
            func post(_ token: String) async throws -> HTTPResponse {
                try await TestBrowser().send(
                    "POST", origin + "/bff/backchannel",
                    headers: [("Content-Type", "application/x-www-form-urlencoded")],
                    body: FormBody.encode([("logout_token", token)]))
            }
            func token(_ fields: [(String, String)]) async throws -> String {
                try #require(try await provider.control("/test/logout-token", fields)["logout_token"] as? String)
            }
            // Forged or broken each way: 400, and nobody is signed out.
            let forgeries: [[(String, String)]] = [
                [("sub", "alice"), ("signer", "other")], [("sub", "alice"), ("aud", "someone-else")],
                [("sub", "alice"), ("iss", "https://evil.example")], [("sub", "alice"), ("events", "none")],
                [("sub", "alice"), ("nonce", "n")], [("sub", "alice"), ("iat_offset", "-3600")],
                [("sub", "alice"), ("alg", "none")],
                [("sub", "alice"), ("alg", "HS256")], [("sub", ""), ("sid", "")],
            ]
            for fields in forgeries {
                #expect(try await post(try await token(fields)).status == 400, "\(fields)")
            }
            #expect(try await post("not-a-jwt").status == 400)
            #expect(try await browser.get(origin + "/bff/user", headers: [("X-CSRF", "1")]).status == 200)

            // A real one for alice: her session ends, bob's goes on; the same token again is refused.
            let real = try await token([("sub", "alice")])
            #expect(try await post(real).status == 200)
            #expect(try await browser.get(origin + "/bff/user", headers: [("X-CSRF", "1")]).status == 401)
            #expect(try await bob.get(origin + "/bff/user", headers: [("X-CSRF", "1")]).status == 200)
            #expect(try await post(real).status == 400)

            // The provider itself ends bob's session by its sid and sends the token to the gateway.
            try await provider.control("/test/backchannel-uri", [("uri", origin + "/bff/backchannel")])
            let sessions = try await provider.state()["sessions"] as? [[String: Any]] ?? []
            let sid = try #require(
                sessions.last { $0["sub"] as? String == "bob" && $0["active"] as? Bool == true }?["sid"] as? String)
            let sent = try await provider.control("/test/end-session", [("sid", sid)])
            #expect(sent["status"] as? Int == 200, "\(sent)")
            #expect(try await bob.get(origin + "/bff/user", headers: [("X-CSRF", "1")]).status == 401)
            try await provider.control("/test/backchannel-uri", [("uri", "")])
        }

        @Test func aSessionUnusedPastTheIdleTimeoutEnds() async throws {
            let provider = try TestProvider()
            // Used every second for longer than its idle timeout, then left unused for longer. A use is recorded
            // in whole seconds, so it may count as up to a second older: a timeout of 6 s leaves 4 s between two
            // uses for a busy machine to be late (with 2 s, a call that took a few tenths could end the session).
            // The uses run on a thread of their own, over a socket, so that no wait for the suite's busy shared
            // threads comes between them.
            let (gateway, origin) = try await gateway(provider, extra: ["--idle-timeout", "6"])
            defer { _ = sandbox.stopGatewayNow(gateway) }
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            let cookie = try #require(browser.cookies(for: origin)["__Host-hardtack"])
            let port = try #require(URL(string: origin)?.port)
            let uses = await DedicatedThread.run { () -> [String] in
                let request = "GET /api/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: __Host-hardtack=\(cookie)\r\n"
                    + "X-CSRF: 1\r\nConnection: close\r\n\r\n"
                var lastUse = Date()
                return (0..<7).map { _ in
                    Thread.sleep(forTimeInterval: 1)
                    let answer = RawSocket.exchangeBlocking(port: UInt16(port), sending: Array(request.utf8)) ?? "(none)"
                    defer { lastUse = Date() }
                    return "\(answer.prefix { $0 != "\r" }) \(String(format: "%.1f", Date().timeIntervalSince(lastUse))) s after"
                }
            }
            for use in uses { #expect(use.hasPrefix("HTTP/1.1 200 "), "in use: kept (\(use) the last)") }
            try await Task.sleep(for: .seconds(8))
            let ended = try await browser.get(origin + "/bff/user", headers: [("X-CSRF", "1")])
            #expect(ended.status == 401 && errorCode(ended) == "session_ended")
            #expect(browser.cookies(for: origin)["__Host-hardtack"] == nil)
        }

        @Test func healthAndMetricsAnswer() async throws {
            let provider = try TestProvider()
            let (gateway, origin) = try await gateway(provider)
            defer { _ = sandbox.stopGatewayNow(gateway) }
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            #expect(try await browser.get(origin + "/api/echo", headers: [("X-CSRF", "1")]).status == 200)
            #expect(try await browser.get(origin + "/healthz").status == 200)
            let metrics = String(decoding: try await browser.get(origin + "/metrics").body, as: UTF8.self)
            #expect(
                metrics.contains(#"hardtack_gateway_requests_total{route="callback",status="302"} 1"#), "\(metrics)")
            #expect(metrics.contains(#"hardtack_gateway_requests_total{route="/api/",status="200"} 1"#))
            #expect(metrics.contains("hardtack_gateway_sessions_created_total 1"))
            #expect(metrics.contains("hardtack_gateway_upstream_seconds_count 1"))
        }
    }
}
