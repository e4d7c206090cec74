import Data
import Foundation
import TestSupport
import Testing

/// libmicrohttpd writes an answer's head into the memory that still holds its request's head, and closes a
/// connection whose answer head does not fit there without a word: the gateway bounds the upstream's answer
/// heads, and the server refuses a request that would leave too little room, so every request gets an answer.
extension GatewayScenarios {
    @Suite struct GatewayAnswerHeadTests {
        let sandbox = CLISandbox()
        let browser = TestBrowser()

        func gateway(_ provider: TestProvider) async throws -> (RunningProcess, String) {
            try await sandbox.startGateway(issuer: provider.issuer, routes: ["/api/=\(provider.issuer)/api/"])
        }

        func errorCode(_ response: HTTPResponse) -> String? {
            (try? JSONSerialization.jsonObject(with: response.body) as? [String: String])?["error"]
        }

        @Test func anUpstreamAnswerHeadOverItsBoundIs502AndOneWithinItPassesEvenBesideALargeRequestHead() async throws {
            let provider = try TestProvider()
            let (gateway, origin) = try await gateway(provider)
            defer { _ = sandbox.stopGatewayNow(gateway) }
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            let csrf = [("X-CSRF", "1")]
            let within = try await browser.get(origin + "/api/echo?answer_header_bytes=3000", headers: csrf)
            #expect(within.status == 200 && within.headers["X-Padding-2"]?.count == 1000)
            let over = try await browser.get(origin + "/api/echo?answer_header_bytes=6000", headers: csrf)
            #expect(over.status == 502 && errorCode(over) == "upstream_head_too_large", "\(over.status)")
            // libmicrohttpd writes the answer's head beside the request's: a 7 KB request head and a 3.3 KB
            // answer head still get the answer, not a connection closed without a word.
            let large = try await browser.get(
                origin + "/api/echo?answer_header_bytes=3300",
                headers: csrf + [("X-Large", String(repeating: "l", count: 7000))])
            #expect(large.status == 200 && large.headers["X-Padding-3"]?.count == 300, "\(large.status)")
            #expect(try await browser.get(origin + "/bff/user", headers: csrf).status == 200)
        }

        /// A `HEAD` through a route has the upstream's answer to it: its `Content-Length` (the length its `GET`
        /// would have, which the server wrote as 0), and no body; the upstream's connection stays in use.
        @Test func aHEADThroughARouteHasTheUpstreamsLengthAndNoBody() async throws {
            let provider = try TestProvider()
            let (gateway, origin) = try await gateway(provider)
            defer { _ = sandbox.stopGatewayNow(gateway) }
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            let csrf = [("X-CSRF", "1")]
            let get = try await browser.get(origin + "/api/echo", headers: csrf)
            let head = try await browser.send("HEAD", origin + "/api/echo", headers: csrf)
            #expect(head.status == 200 && head.body.isEmpty)
            // The echo names the method it answers, so its answer to HEAD is one letter longer than to GET.
            let length = try #require(head.headers["Content-Length"].flatMap { Int($0) }, "\(head.headers)")
            #expect(length == get.body.count + 1, "\(length) against \(get.body.count)")
            #expect(head.headers["Content-Type"] == "application/json")
            #expect(try await browser.get(origin + "/api/echo", headers: csrf).status == 200, "the next call")
        }

        /// A `HEAD` whose upstream answer has no length (its `GET` streams) goes without one, framed as its `GET`
        /// would be (chunked), not with `Content-Length: 0`; so does one whose length a `Transfer-Encoding` beside it
        /// overrides (RFC 9112 §6.3); a known length is passed on.
        @Test func aHEADWithoutAUsableLengthIsFramedAsItsGETWouldBe() async throws {
            let provider = try TestProvider()
            let (gateway, origin) = try await gateway(provider)
            defer { _ = sandbox.stopGatewayNow(gateway) }
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            let csrf = [("X-CSRF", "1")]
            for framing in ["none", "both"] {
                let head = try await browser.send("HEAD", origin + "/api/stream?bytes=1000&framing=\(framing)", headers: csrf)
                #expect(head.status == 200 && head.body.isEmpty, "\(framing): \(head.status)")
                #expect(head.headers["Content-Length"] == nil, "\(framing): \(head.headers)")
                #expect(head.headers["Transfer-Encoding"] == "chunked", "\(framing): \(head.headers)")
            }
            let known = try await browser.send("HEAD", origin + "/api/stream?bytes=1000", headers: csrf)
            #expect(known.status == 200 && known.body.isEmpty && known.headers["Content-Length"] == "1000")
            let get = try await browser.get(origin + "/api/stream?bytes=1000&framing=none", headers: csrf)
            #expect(get.status == 200 && get.body.count == 1000)
        }

        /// An upstream status that cannot be passed on (past 599) is 502, where the server wrote it as 500; a 101
        /// not asked for is 502 too (curl fails it); the ordinary ones pass.
        @Test func anUpstreamStatusThatCannotBePassedOnIs502() async throws {
            let provider = try TestProvider()
            let (gateway, origin) = try await gateway(provider)
            defer { _ = sandbox.stopGatewayNow(gateway) }
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            let csrf = [("X-CSRF", "1")]
            for status in [999, 600] {
                let answer = try await browser.get(origin + "/api/echo?answer_status=\(status)", headers: csrf)
                #expect(answer.status == 502 && errorCode(answer) == "upstream_invalid_status", "\(status): \(answer.status)")
            }
            // A 101 it did not ask for, curl itself takes for a failed transfer.
            #expect(try await browser.get(origin + "/api/echo?answer_status=101", headers: csrf).status == 502)
            for status in [201, 418, 599] {
                #expect(try await browser.get(origin + "/api/echo?answer_status=\(status)", headers: csrf).status == status)
            }
        }

        /// Beside nearly 8 KiB of cookies, in few or many: the widest upstream answer head passed back, and the
        /// gateway's own widest (a sign-in's redirect with the longest return path sealed into its cookie), are
        /// answered whole, or the request is refused 431 when its cookies leave no room; never met with silence.
        @Test func theWidestAnswersBesideNearly8KiBOfCookiesAreSentOrTheRequestIsRefused431() async throws {
            let provider = try TestProvider()
            let (gateway, origin) = try await gateway(provider)
            defer { _ = sandbox.stopGatewayNow(gateway) }
            _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            let session = browser.cookies(for: origin)
            let sessionBytes = session.map { $0.key.utf8.count + $0.value.utf8.count + 3 }.reduce(0, +)
            let returnPath = "/" + String(repeating: "r", count: 2_047)
            /// Sets `count` cookies beside the session's, `bytes` of the `Cookie` field in all.
            func fill(_ count: Int, _ bytes: Int) {
                for name in browser.cookies(for: origin).keys where session[name] == nil {
                    browser.setCookie(name, nil, for: origin)
                }
                let each = (bytes - sessionBytes) / count - 2
                for index in 0..<count {
                    let name = "c\(index)"
                    browser.setCookie(name, String(repeating: "v", count: each - name.utf8.count - 1), for: origin)
                }
            }
            for count in [20, 55, 100] {
                // Each head nearly 8 KiB: the return path is part of the sign-in's.
                fill(count, 7_600)
                let echo = try await browser.get(
                    origin + "/api/echo?answer_header_bytes=3800", headers: [("X-CSRF", "1")])
                fill(count, 7_600 - returnPath.utf8.count)
                let login = try await browser.get(origin + "/bff/login?returnUrl=" + returnPath)
                if count <= 55 {
                    #expect(echo.status == 200 && echo.headers["X-Padding-3"]?.count == 800, "\(count): \(echo.status)")
                    #expect(login.status == 302 && login.headers["Set-Cookie"] != nil, "\(count): \(login.status)")
                    // Within the room the server keeps for an answer head, whatever the request beside it.
                    let loginHead = login.headers.reduce("HTTP/1.1 302 Found\r\n\r\n".utf8.count) {
                        $0 + $1.name.utf8.count + $1.value.utf8.count + 4
                    }
                    #expect(loginHead < 4 * 1024 + 256, "\(loginHead) bytes")
                } else {
                    // A hundred cookies and their records leave too little beside the longer copy; beside the
                    // shorter one, next to the long target, the answer may still have room.
                    #expect(echo.status == 431 && errorCode(echo) == "request_head_too_large", "\(echo.status)")
                    #expect(
                        (login.status == 302 && login.headers["Set-Cookie"] != nil)
                            || (login.status == 431 && errorCode(login) == "request_head_too_large"), "\(login.status)")
                }
            }
        }

        /// An ID token of many kilobytes (a provider listing the user's groups in it): the sign-out's redirect
        /// leaves the hint out rather than grow past the room for an answer's head, names the client instead,
        /// and the issuer still sends the browser back.
        @Test func aSignOutWithALongIDTokenRedirectsWithoutTheHint() async throws {
            let provider = try TestProvider()
            let (gateway, origin) = try await gateway(provider)
            defer { _ = sandbox.stopGatewayNow(gateway) }
            try await provider.control(
                "/test/id-token-padding", [("client_id", CLISandbox.gatewayClient.id), ("bytes", "6000")])
            do {
                _ = try await browser.signIn(gateway: origin, user: "alice", password: "wonderland")
            } catch {
                try await provider.control(
                    "/test/id-token-padding", [("client_id", CLISandbox.gatewayClient.id), ("bytes", "0")])
                throw error
            }
            try await provider.control(
                "/test/id-token-padding", [("client_id", CLISandbox.gatewayClient.id), ("bytes", "0")])
            let user = try await browser.get(origin + "/bff/user", headers: [("X-CSRF", "1")])
            let sid = try #require((try JSONSerialization.jsonObject(with: user.body) as? [String: String])?["sid"])
            let out = try await browser.get(origin + "/bff/logout?sid=" + sid)
            let location = try #require(out.headers["Location"])
            #expect(
                out.status == 302 && location.hasPrefix(provider.issuer + "/logout?client_id="),
                "\(location.prefix(120))")
            #expect(!location.contains("id_token_hint") && location.utf8.count < 3 * 1024)
            let atIssuer = try await browser.get(location)
            #expect(atIssuer.status == 302 && atIssuer.headers["Location"] == origin + "/")
        }
    }
}
