import Data
import Domain
import Foundation
import TestSupport
import Testing

@Suite struct OAuthGatewayTests {
    let clock = TestClock()
    let http = ScriptedHTTPClient()
    var gateway: OAuthAuthenticationGateway { OAuthAuthenticationGateway(http: http, clientID: "demo-app", now: clock.now) }
    let credentials = Credentials.password(username: "alice", password: SecretBytes(utf8: "wonder land&="))

    func tokenReply(_ body: String, status: Int = 200) {
        http.reply("/oauth/token", status: status, headers: [("Content-Type", "application/json")], body: body)
    }

    func meReply() { http.reply("/api/me", status: 200, body: #"{"sub":"u1","name":"Alice"}"#) }

    @Test func signInExchangesAPasswordForASessionWithTheUser() async throws {
        tokenReply(#"{"access_token":"at1","token_type":"bearer","expires_in":300,"refresh_token":"rt1","scope":"api"}"#)
        meReply()
        let session = try await gateway.signIn(credentials)
        #expect(session.accessToken.value.revealedString() == "at1")
        #expect(session.refreshToken.value.revealedString() == "rt1")
        #expect(session.accessToken.expiresAt == clock.date + 300)
        #expect(session.user == User(id: "u1", name: "Alice"))
        let form = FormBodyProbe.fields(http.requests[0].body)
        #expect(form == ["grant_type": "password", "username": "alice", "password": "wonder land&=", "client_id": "demo-app"])
        #expect(http.requests[0].headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(http.requests[1].headers["Authorization"] == "Bearer at1")
    }

    @Test(arguments: ["Bearer", "BEARER", "bearer"])
    func theTokenTypeIsCaseInsensitive(_ type: String) async throws {
        tokenReply(#"{"access_token":"at1","token_type":"\#(type)","refresh_token":"rt1"}"#)
        meReply()
        let session = try await gateway.signIn(credentials)
        #expect(session.accessToken.expiresAt == nil)
    }

    @Test(arguments: [
        (#"{"token_type":"Bearer","refresh_token":"rt1"}"#, "access_token"),
        (#"{"access_token":"at1","token_type":"mac","refresh_token":"rt1"}"#, "token_type is 'mac', not Bearer"),
        (#"{"access_token":"at1","token_type":"DPOP","refresh_token":"rt1"}"#, "token_type is 'DPoP', not Bearer"),
        // A token in the wrong field (the torture bench's fuzzer made one): not quoted.
        (#"{"access_token":"at1","token_type":"TOKEN.secret","refresh_token":"rt1"}"#, "(its value is not shown)"),
        (#"{"access_token":"at1","refresh_token":"rt1"}"#, "token_type"),
        (#"{"access_token":"at1","token_type":"Bearer","expires_in":-5,"refresh_token":"rt1"}"#, "positive"),
        (#"{"access_token":"at1","token_type":"Bearer","expires_in":0,"refresh_token":"rt1"}"#, "positive"),
        (#"{"access_token":"at1","token_type":"Bearer","expires_in":99999999999,"refresh_token":"rt1"}"#, "absurd"),
        (#"{"access_token":"at1","token_type":"Bearer","expires_in":300}"#, "refresh_token"),
        (#"{"access_token":"a b","token_type":"Bearer","refresh_token":"rt1"}"#, "bearer token"),
        ("<html><body>502 Bad Gateway</body></html>", "HTML"),
        ("[1,2,3]", "not a JSON object"),
        (#"{"access_token": 42}"#, "expected JSON"),
    ])
    func malformedRepliesAreRefusedAndNothingIsReturned(_ body: String, _ reason: String) async {
        tokenReply(body)
        meReply()
        await #expect {
            try await gateway.signIn(credentials)
        } throws: { error in
            guard case .invalidResponse(let message) = error as? AuthenticationError else { return false }
            return message.contains(reason)
        }
    }

    @Test func anOversizedBodyIsRefused() async {
        http.reply("/oauth/token", status: 200, body: Data(("{\"x\":\"" + String(repeating: "a", count: 70_000) + "\"}").utf8))
        await #expect(throws: AuthenticationError.invalidResponse("the reply body is over 64 KiB")) {
            try await gateway.signIn(credentials)
        }
    }

    @Test func aBadPasswordIsInvalidCredentials() async {
        tokenReply(#"{"error":"invalid_grant","error_description":"bad username or password"}"#, status: 400)
        await #expect(throws: AuthenticationError.invalidCredentials("bad username or password")) {
            try await gateway.signIn(credentials)
        }
    }

    @Test func anUnknownClientIsRejectedNotABadPassword() async {
        tokenReply(#"{"error":"invalid_client"}"#, status: 401)
        await #expect(throws: AuthenticationError.rejected(status: 401, reason: "invalid_client")) {
            try await gateway.signIn(credentials)
        }
    }

    @Test func serverAndNetworkFailuresAreTemporary() async {
        tokenReply("<html>oops</html>", status: 503)
        await #expect(throws: AuthenticationError.temporarilyUnavailable("the server answered HTTP 503")) {
            try await gateway.signIn(credentials)
        }
        let unreachable = ScriptedHTTPClient()
        unreachable.fail("/oauth/token", with: .cannotConnect("connection refused"))
        let offline = OAuthAuthenticationGateway(http: unreachable, clientID: "demo-app", now: clock.now)
        await #expect(
            throws: AuthenticationError.temporarilyUnavailable(HTTPClientError.cannotConnect("connection refused").description)
        ) { try await offline.refresh(UseCaseSamples.session()) }
    }

    @Test func identityTokensNeedTheHeaderContract() async {
        await #expect {
            try await gateway.signIn(.identityToken(provider: "apple", token: SecretBytes(utf8: "id")))
        } throws: { error in
            guard case .unsupported(let message) = error as? AuthenticationError else { return false }
            return message.contains("the header contract")
        }
        #expect(http.requests.isEmpty)
    }

    @Test func refreshSendsTheRefreshGrantAndMayKeepTheOldRefreshToken() async throws {
        tokenReply(#"{"access_token":"at2","token_type":"Bearer","expires_in":60}"#)
        let refreshed = try await gateway.refresh(UseCaseSamples.session())
        #expect(refreshed.refreshToken == nil)
        #expect(refreshed.accessToken.value.revealedString() == "at2")
        let form = FormBodyProbe.fields(http.requests[0].body)
        #expect(form == ["grant_type": "refresh_token", "refresh_token": "rt0", "client_id": "demo-app"])
    }

    @Test func aRejectedRefreshTokenEndsTheSessionButA5xxDoesNot() async {
        tokenReply(#"{"error":"invalid_grant"}"#, status: 400)
        await #expect(throws: AuthenticationError.sessionExpired) { try await gateway.refresh(UseCaseSamples.session()) }
        let http2 = ScriptedHTTPClient()
        http2.reply("/oauth/token", status: 500, body: "")
        let gateway2 = OAuthAuthenticationGateway(http: http2, clientID: "demo-app", now: clock.now)
        await #expect(throws: AuthenticationError.temporarilyUnavailable("the server answered HTTP 500")) {
            try await gateway2.refresh(UseCaseSamples.session())
        }
    }

    @Test func revocationFollowsRFC7009() async throws {
        http.reply("/oauth/revoke", status: 200)
        try await gateway.revoke(UseCaseSamples.session().refreshToken)
        #expect(FormBodyProbe.fields(http.requests[0].body) == [
            "token": "rt0", "token_type_hint": "refresh_token", "client_id": "demo-app",
        ])
    }

    @Test(arguments: [
        ("<html>captive portal</html>", "HTML"),
        (#"{"token_type":"Bearer"}"#, "access_token"),
        (#"{"access_token":"at2","token_type":"mac"}"#, "not Bearer"),
    ])
    func malformedRefreshRepliesAreRefusedAndKeepNothing(_ body: String, _ reason: String) async {
        tokenReply(body)
        await #expect {
            try await gateway.refresh(UseCaseSamples.session())
        } throws: { error in
            guard case .invalidResponse(let message) = error as? AuthenticationError else { return false }
            return message.contains(reason)
        }
    }

    @Test(arguments: [429, 408, 502])
    func busyOrFailingServersAreTemporary(_ status: Int) async {
        tokenReply("", status: status)
        await #expect(throws: AuthenticationError.temporarilyUnavailable("the server answered HTTP \(status)")) {
            try await gateway.refresh(UseCaseSamples.session())
        }
    }

    @Test func aBare401OnRefreshIsNotTrustedToEndAnOAuthSession() async {
        tokenReply("<html>401 from a proxy</html>", status: 401)
        await #expect(throws: AuthenticationError.rejected(status: 401, reason: "unexpected reply")) {
            try await gateway.refresh(UseCaseSamples.session())
        }
    }

    @Test func anOversizedReplyIsOutOfContractNotTemporary() async {
        http.fail("/oauth/token", with: .responseTooLarge(limit: 1_048_576))
        await #expect(throws: AuthenticationError.invalidResponse("the reply body is larger than 1048576 bytes")) {
            try await gateway.refresh(UseCaseSamples.session())
        }
    }

    @Test func serverTextIsShownWithoutControlCharacters() async {
        tokenReply(#"{"error":"invalid_grant","error_description":"bad\u001b[2Jpassword"}"#, status: 400)
        await #expect(throws: AuthenticationError.invalidCredentials("bad[2Jpassword")) {
            try await gateway.signIn(credentials)
        }
    }

    @Test func headersNeverShowTheirValues() {
        var headers = HTTPHeaders()
        headers["Authorization"] = "Bearer top-secret-token"
        let request = HTTPRequest(method: "GET", path: "/api/me", headers: headers)
        var dumped = ""
        dump(request, to: &dumped)
        for text in ["\(headers)", "\(request)", String(reflecting: headers), dumped] {
            #expect(!text.contains("top-secret-token"), "\(text)")
        }
    }
}

/// Decodes form bodies for assertions.
enum FormBodyProbe {
    static func fields(_ body: Data) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }
}

/// A stored session to refresh or revoke.
enum UseCaseSamples {
    static func session(expiresAt: Date? = nil) -> Session {
        Session(
            accessToken: try! AccessToken(value: SecretBytes(utf8: "at0"), issuedAt: Date(timeIntervalSince1970: 0), expiresAt: expiresAt),
            refreshToken: try! RefreshToken(value: SecretBytes(utf8: "rt0")), user: User(id: "u1", name: "Alice"),
            method: .password)
    }
}
