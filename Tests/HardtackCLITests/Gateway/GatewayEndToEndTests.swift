import Data
import Foundation
import TestSupport
import Testing

/// `hardtack gateway` end to end against the project's Authlib provider (Tools/OAuthProvider) as a
/// confidential client, its test API as the upstream, and a scripted browser that keeps cookies and fills
/// in the provider's sign-in form.
extension GatewayScenarios {
    @Suite struct GatewayEndToEndTests {
        let sandbox = CLISandbox()
        let browser = TestBrowser()

        func provider() throws -> TestProvider { try TestProvider() }

        /// A gateway whose route `/api/` goes to the provider's test API.
        func gateway(_ provider: TestProvider, extra: [String] = []) async throws -> (RunningProcess, String) {
            try await sandbox.startGateway(issuer: provider.issuer, routes: ["/api/=\(provider.issuer)/api/"], extra: extra)
        }

        @Test func signingInSetsAnOpaqueHostCookieAndTheUserIsKnown() async throws {
            let provider = try provider()
            let (gateway, origin) = try await gateway(provider)
            defer { _ = sandbox.stopGatewayNow(gateway) }
            let back = try await browser.signIn(
                gateway: origin, user: "alice", password: "wonderland", returnUrl: "/after?x=1")
            #expect(back.status == 302 && back.headers["Location"] == "/after?x=1")
            let setCookie = try #require(
                back.headers.first { $0.name.lowercased() == "set-cookie" && $0.value.hasPrefix("__Host-hardtack=") }?
                    .value)
            for attribute in ["; Path=/", "; Secure", "; HttpOnly", "; SameSite=Lax"] {
                #expect(setCookie.contains(attribute), "\(setCookie)")
            }
            #expect(!setCookie.lowercased().contains("domain="))
            let value = try #require(browser.cookies(for: origin)["__Host-hardtack"])
            #expect(value.utf8.count == 86, "an id, a secret and a tag: 512 bits, base64url")
            #expect(!value.contains("eyJ"), "an opaque value, no token")

            let user = try await browser.get(origin + "/bff/user", headers: [("X-CSRF", "1")])
            #expect(user.status == 200)
            let claims = try #require(try JSONSerialization.jsonObject(with: user.body) as? [String: String])
            #expect(claims["sub"] == "alice" && claims["name"] == "Alice Liddell" && claims["sid"]?.utf8.count == 32)
            #expect(try await browser.get(origin + "/bff/user").status == 403, "no X-CSRF header")
            #expect(
                try await TestBrowser().get(origin + "/bff/user", headers: [("X-CSRF", "1")]).status == 401, "no cookie"
            )
        }

        @Test func aCallThroughARouteCarriesTheTokenNeverTheCookie() async throws {
            let provider = try provider()
            let (gateway, origin) = try await gateway(provider)
            defer { _ = sandbox.stopGatewayNow(gateway) }
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            let answer = try await browser.send(
                "POST", origin + "/api/echo/items?q=a%20b",
                headers: [
                    ("X-CSRF", "1"), ("Authorization", "Bearer the-browsers-own"), ("X-Trace", "t1"),
                    ("Content-Type", "text/plain"), ("Connection", "X-Hop-One"), ("X-Hop-One", "1"),
                    ("Connection", "x-hop-two, keep-alive"), ("X-Hop-Two", "2"), ("TE", "trailers"),
                    ("Proxy-Authorization", "Basic cHJveHk6cHc="), ("Upgrade", "websocket"),
                ],
                body: Data("hello".utf8))
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            let echo = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
            let headers = try #require(echo["headers"] as? [String: String])
            #expect(echo["sub"] as? String == "alice" && echo["token_client"] as? String == "hardtack-gateway")
            #expect(echo["path"] as? String == "/api/echo/items" && echo["body_length"] as? Int == 5)
            #expect(headers["authorization"] == "present" && headers["cookie"] == nil && headers["x-csrf"] == nil)
            #expect(headers["x-trace"] == "t1")
            // Hop-by-hop fields, and those a Connection field names (from every one), stay on this hop.
            for name in ["x-hop-one", "x-hop-two", "te", "proxy-authorization", "upgrade"] {
                #expect(headers[name] == nil, "\(name) was forwarded")
            }
            // The way back: the upstream's cookie, its hop-by-hop fields and the one its Connection names stay
            // with the gateway; the rest reaches the browser.
            let back = try await browser.get(origin + "/api/echo?answer_hop_by_hop=1", headers: [("X-CSRF", "1")])
            #expect(back.status == 200 && back.headers["X-Kept"] == "yes", "\(back.headers)")
            for name in ["Set-Cookie", "Keep-Alive", "X-Upstream-Hop"] {
                #expect(back.headers[name] == nil, "\(name) was passed back")
            }
            #expect(back.headers["Connection"].map { !$0.localizedCaseInsensitiveContains("x-upstream-hop") } ?? true)

            let before = try await provider.count("api_calls")
            #expect(try await browser.get(origin + "/api/echo").status == 403, "no X-CSRF header")
            #expect(
                try await TestBrowser().get(origin + "/api/echo", headers: [("X-CSRF", "1")]).status == 401,
                "no session")
            #expect(try await provider.count("api_calls") == before, "nothing reached the upstream")
        }

        @Test func twentyCallsAfterExpiryShareOneRefresh() async throws {
            let provider = try provider()
            try await provider.control(
                "/test/access-token-lifetime", [("client_id", CLISandbox.gatewayClient.id), ("seconds", "2")])
            let (gateway, origin) = try await gateway(provider)
            defer { _ = sandbox.stopGatewayNow(gateway) }
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            // Only the signed-in token lives 2 s; the refreshed one the provider's hour, so that it cannot run out
            // too before the last of the twenty calls, however slowly a busy machine makes them.
            try await provider.control(
                "/test/access-token-lifetime", [("client_id", CLISandbox.gatewayClient.id), ("seconds", "default")])
            let refreshesBefore = try await provider.refreshes(CLISandbox.gatewayClient.id)
            let reuseBefore = try await provider.count("reuse_detections")
            try await Task.sleep(for: .seconds(3))
            let browser = browser
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        try await browser.get(origin + "/api/echo/\(index)", headers: [("X-CSRF", "1")]).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 20))
            #expect(try await provider.refreshes(CLISandbox.gatewayClient.id) == refreshesBefore + 1)
            #expect(try await provider.count("reuse_detections") == reuseBefore)
            let metrics = String(decoding: try await browser.get(origin + "/metrics").body, as: UTF8.self)
            #expect(metrics.contains("hardtack_gateway_refreshes_total 1\n"), "\(metrics)")
        }

        @Test func logoutNeedsTheRightSidThenRevokesAndGoesToTheIssuer() async throws {
            let provider = try provider()
            let (gateway, origin) = try await gateway(provider)
            defer { _ = sandbox.stopGatewayNow(gateway) }
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            let user = try await browser.get(origin + "/bff/user", headers: [("X-CSRF", "1")])
            let sid = try #require((try JSONSerialization.jsonObject(with: user.body) as? [String: String])?["sid"])
            // A link on another site, or a guessed sid, signs no one out.
            #expect(try await browser.get(origin + "/bff/logout").status == 400)
            #expect(
                try await browser.get(origin + "/bff/logout?sid=" + String(repeating: "0", count: 32)).status == 400)
            #expect(try await browser.get(origin + "/bff/user", headers: [("X-CSRF", "1")]).status == 200)
            // Nor does a cookie forged from the session's id (which the page shows) and another secret.
            let real = try #require(browser.cookies(for: origin)["__Host-hardtack"])
            var forgedBytes = try #require(Base64URL.decode(real).map(Array.init))
            forgedBytes[forgedBytes.count - 1] ^= 0x55
            let attacker = TestBrowser()
            attacker.setCookie("__Host-hardtack", Base64URL.encode(forgedBytes), for: origin)
            let forged = try await attacker.get(origin + "/bff/logout?sid=" + sid)
            #expect(forged.status == 302 && forged.headers["Location"] == "/")
            #expect(try await browser.get(origin + "/bff/user", headers: [("X-CSRF", "1")]).status == 200)

            let revocationsBefore = try await provider.count("revocations")
            let out = try await browser.get(origin + "/bff/logout?sid=" + sid)
            #expect(out.status == 302)
            let location = try #require(out.headers["Location"])
            #expect(location.hasPrefix(provider.issuer + "/logout?id_token_hint="), "\(location)")
            #expect(
                location.contains(
                    "post_logout_redirect_uri="
                        + origin.replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: "/", with: "%2F")))
            #expect(browser.cookies(for: origin)["__Host-hardtack"] == nil, "the cookie is cleared")
            #expect(try await provider.count("revocations") == revocationsBefore + 1)
            let atIssuer = try await browser.get(location)
            #expect(atIssuer.status == 302 && atIssuer.headers["Location"] == origin + "/")
            #expect(try await browser.get(origin + "/bff/user", headers: [("X-CSRF", "1")]).status == 401)
        }

        /// Signing in again in the same browser ends the session it replaces (revoked at the issuer,
        /// gone from the store), so none is left behind that the browser will never present again.
        @Test func aSecondSignInEndsTheSessionItReplaces() async throws {
            let provider = try provider()
            let (gateway, origin) = try await gateway(provider)
            defer { _ = sandbox.stopGatewayNow(gateway) }
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            let first = try #require(browser.cookies(for: origin)["__Host-hardtack"])
            let revocationsBefore = try await provider.count("revocations")
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            let second = try #require(browser.cookies(for: origin)["__Host-hardtack"])
            #expect(first != second)
            #expect(try await browser.get(origin + "/bff/user", headers: [("X-CSRF", "1")]).status == 200)
            #expect(try await provider.count("revocations") == revocationsBefore + 1)
            let old = TestBrowser()
            old.setCookie("__Host-hardtack", first, for: origin)
            #expect(try await old.get(origin + "/bff/user", headers: [("X-CSRF", "1")]).status == 401)
        }

        /// SIGTERM while a refresh is in flight, the issuer slower than the stop's 10 s grace: the caller
        /// gets 503, but the process stores the rotated tokens before it exits, so after a restart the
        /// session goes on and the issuer never sees the old refresh token again.
        @Test func aStopDuringARefreshKeepsItsTokens() async throws {
            let provider = try provider()
            try await provider.control(
                "/test/access-token-lifetime", [("client_id", CLISandbox.gatewayClient.id), ("seconds", "1")])
            var (gateway, origin) = try await gateway(provider)
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            let reuseBefore = try await provider.count("reuse_detections")
            let refreshesBefore = try await provider.refreshes(CLISandbox.gatewayClient.id)
            try await provider.control("/test/token-endpoint", [("delay_ms", "12000")])
            try await Task.sleep(for: .seconds(2))
            let (browser, url) = (browser, origin + "/api/echo")
            let call = Task { try await browser.get(url, headers: [("X-CSRF", "1")]).status }
            // Stopped once the call's refresh is on its way (the gateway counts a refresh as it presents it), so
            // that the issuer's 12 s outlast the stop's 10 s grace. The looks and the SIGTERM run on a thread of
            // their own: timed by tasks, the suite's busy shared threads could hold the SIGTERM past the 2 s
            // between. Bounded at 60 s only against a hang.
            let (gatewayID, port) = (gateway.process.processIdentifier, try #require(URL(string: origin)?.port))
            let metrics = await DedicatedThread.run { () -> String in
                let deadline = Date() + 60
                var metrics = ""
                while Date() < deadline {
                    guard
                        let answer = RawSocket.exchangeBlocking(
                            port: UInt16(port),
                            sending: Array("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
                    else {
                        metrics = "(the gateway no longer listens)"
                        break
                    }
                    metrics = answer
                    if metrics.contains("hardtack_gateway_refreshes_total 1\n") { break }
                    Thread.sleep(forTimeInterval: 0.02)
                }
                // Stopped whatever was seen, so that the wait below always ends.
                kill(gatewayID, SIGTERM)
                return metrics
            }
            #expect(metrics.contains("hardtack_gateway_refreshes_total 1\n"), "no refresh began: \(metrics)")
            let stopped = await gateway.wait()
            #expect(stopped.status == 0, "\(stopped.stderr.suffix(300))")
            #expect(try await call.value == 503)
            #expect(try await provider.refreshes(CLISandbox.gatewayClient.id) == refreshesBefore + 1)
            try await provider.control("/test/token-endpoint", [("delay_ms", "0")])
            try await provider.control(
                "/test/access-token-lifetime", [("client_id", CLISandbox.gatewayClient.id), ("seconds", "3600")])

            (gateway, origin) = try await sandbox.startGateway(
                issuer: provider.issuer, routes: ["/api/=\(provider.issuer)/api/"], port: UInt16(port))
            defer { _ = sandbox.stopGatewayNow(gateway) }
            try await Task.sleep(for: .seconds(1))
            #expect(try await browser.get(origin + "/api/echo", headers: [("X-CSRF", "1")]).status == 200)
            #expect(try await provider.count("reuse_detections") == reuseBefore)
        }

        @Test func aRestartKeepsTheSessionAndACopyOfTheStoreHoldsNoToken() async throws {
            let provider = try provider()
            var (gateway, origin) = try await gateway(provider)
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            #expect(try await browser.get(origin + "/api/echo", headers: [("X-CSRF", "1")]).status == 200)
            let stopped = await sandbox.stopGateway(gateway)
            #expect(stopped.status == 0, "SIGTERM ends it cleanly: \(stopped.stderr.suffix(300))")
            // Every request was logged as one JSON object, without a cookie value or a code.
            let cookie = try #require(browser.cookies(for: origin)["__Host-hardtack"])
            for line in stopped.stderr.split(separator: "\n") where line.hasPrefix("{") {
                #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line)")
                #expect(!line.contains(cookie) && !line.contains("code=") && !line.contains("state="))
            }
            #expect(stopped.stderr.contains("\"route\":\"callback\""))

            // The same store, another process, the same port: the browser's session goes on.
            let port = try #require(URL(string: origin)?.port)
            (gateway, origin) = try await sandbox.startGateway(
                issuer: provider.issuer, routes: ["/api/=\(provider.issuer)/api/"], port: UInt16(port))
            defer { _ = sandbox.stopGatewayNow(gateway) }
            let user = try await browser.get(origin + "/bff/user", headers: [("X-CSRF", "1")])
            #expect(user.status == 200)
            let sid = try #require((try JSONSerialization.jsonObject(with: user.body) as? [String: String])?["sid"])

            // The provider's tokens for the gateway appear nowhere in the store's files, nor in what the store's
            // key alone opens.
            let issued = try await provider.issuedTokens(CLISandbox.gatewayClient.id)
            #expect(!issued.isEmpty)
            let directory = URL(fileURLWithPath: sandbox.store).deletingLastPathComponent().path
            for file in try FileManager.default.contentsOfDirectory(atPath: directory) {
                let bytes = Data(FileBytes.read(directory + "/" + file))
                for token in issued { #expect(bytes.range(of: Data(token.utf8)) == nil, "\(file) holds a token") }
            }
            for account in ["access-token", "refresh-token", "id-token"] {
                let opened = try await sandbox.keychain([
                    "find-generic-password", "-s", "hardtack.session/gateway/" + sid, "-a", account, "-w",
                ])
                #expect(
                    opened.status == 0 && opened.stdout.hasPrefix("s1."), "\(account): sealed under the cookie's key")
                for token in issued { #expect(!opened.stdout.contains(token)) }
            }
        }
    }
}
