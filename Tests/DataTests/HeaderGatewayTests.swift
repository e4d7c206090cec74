import Data
import Domain
import Foundation
import TestSupport
import Testing

@Suite struct HeaderGatewayTests {
    let clock = TestClock()
    let http = ScriptedHTTPClient()
    var gateway: HeaderAuthenticationGateway { HeaderAuthenticationGateway(http: http, clientID: "demo-app", now: clock.now) }
    let credentials = Credentials.password(username: "alice", password: SecretBytes(utf8: "wonderland"))

    @Test(arguments: ["Bearer at1", "at1", "bearer   at1"])
    func theAccessTokenComesFromTheAuthorizationHeader(_ header: String) async throws {
        http.reply(
            "/auth/signin", status: 200, headers: [("Authorization", header), ("Authorization-refresh", "rt1")],
            body: #"{"userId":"u1","nickname":"Alice"}"#)
        let session = try await gateway.signIn(credentials)
        #expect(session.accessToken.value.revealedString() == "at1")
        #expect(session.accessToken.expiresAt == nil)
        #expect(session.refreshToken.value.revealedString() == "rt1")
        #expect(session.user == User(id: "u1", name: "Alice"))
        let body = try JSONSerialization.jsonObject(with: http.requests[0].body) as? [String: String]
        #expect(body == ["username": "alice", "password": "wonderland"])
    }

    @Test func theRefreshTokenMayComeInTheBody() async throws {
        http.reply(
            "/auth/signin", status: 200, headers: [("Authorization", "Bearer at1")],
            body: #"{"userId":"u1","nickname":"Alice","refreshToken":"rt-body"}"#)
        let session = try await gateway.signIn(credentials)
        #expect(session.refreshToken.value.revealedString() == "rt-body")
    }

    @Test(arguments: [
        ([("Authorization-refresh", "rt1")], #"{"userId":"u1"}"#, "Authorization header"),
        ([("Authorization", "Bearer at1")], #"{"userId":"u1"}"#, "no refresh token"),
        ([("Authorization", "Bearer at1"), ("Authorization-refresh", "rt1")], #"{"nickname":"A"}"#, "userId"),
        ([("Authorization", "Bearer"), ("Authorization-refresh", "rt1")], #"{"userId":"u1"}"#, "Authorization header"),
        ([("Authorization", "Bearer a\"b"), ("Authorization-refresh", "rt1")], #"{"userId":"u1"}"#, "bearer token"),
        ([("Authorization", "Bearer at1"), ("Authorization-refresh", "rt1")], "<!doctype html><p>Error</p>", "HTML"),
    ])
    func malformedRepliesAreRefused(_ headers: [(String, String)], _ body: String, _ reason: String) async {
        http.reply("/auth/signin", status: 200, headers: headers, body: body)
        await #expect {
            try await gateway.signIn(credentials)
        } throws: { error in
            guard case .invalidResponse(let message) = error as? AuthenticationError else { return false }
            return message.contains(reason)
        }
    }

    @Test func identitySignInPostsTheProvidersToken() async throws {
        http.reply(
            "/auth/signin/apple", status: 200, headers: [("Authorization", "Bearer at1"), ("Authorization-refresh", "rt1")],
            body: #"{"userId":"apple:1","nickname":"A"}"#)
        let session = try await gateway.signIn(.identityToken(provider: "apple", token: SecretBytes(utf8: "eyJ.id")))
        #expect(session.method == .identityProvider("apple"))
        let body = try JSONSerialization.jsonObject(with: http.requests[0].body) as? [String: String]
        #expect(body == ["identityToken": "eyJ.id"])
    }

    @Test func aProviderNameCannotEscapeThePath() async {
        await #expect(throws: AuthenticationError.self) {
            try await gateway.signIn(.identityToken(provider: "../admin", token: SecretBytes(utf8: "x")))
        }
        #expect(http.requests.isEmpty)
    }

    @Test func refreshSendsTheRefreshTokenInAHeader() async throws {
        http.reply("/auth/refresh", status: 200, headers: [("Authorization", "Bearer at2"), ("Authorization-refresh", "rt2")])
        let refreshed = try await gateway.refresh(UseCaseSamples.session())
        #expect(http.requests[0].headers["authorization-refresh"] == "rt0")
        #expect(http.requests[0].body.isEmpty)
        #expect(refreshed.accessToken.value.revealedString() == "at2")
        #expect(refreshed.refreshToken?.value.revealedString() == "rt2")
    }

    @Test func a401OnRefreshEndsTheSession() async {
        http.reply("/auth/refresh", status: 401, body: #"{"error":"invalid_grant"}"#)
        await #expect(throws: AuthenticationError.sessionExpired) { try await gateway.refresh(UseCaseSamples.session()) }
    }

    @Test func meSendsTheBearerTokenAndMaps401() async throws {
        http.reply("/api/me", status: 200, body: #"{"sub":"u1","name":"Alice"}"#)
        http.reply("/api/me", status: 401, headers: [("WWW-Authenticate", #"Bearer error="invalid_token""#)])
        let profile = ProfileAPI(http: http)
        let token = UseCaseSamples.session().accessToken
        guard case .success(let user) = try await profile.me(token) else {
            Issue.record("expected the user")
            return
        }
        #expect(user.id == "u1")
        guard case .unauthorized = try await profile.me(token) else {
            Issue.record("expected unauthorized")
            return
        }
        #expect(http.requests.allSatisfy { $0.headers["Authorization"] == "Bearer at0" })
    }

    @Test func aBare401OnRefreshEndsAHeaderStyleSession() async {
        http.reply("/auth/refresh", status: 401)
        await #expect(throws: AuthenticationError.sessionExpired) { try await gateway.refresh(UseCaseSamples.session()) }
    }

    @Test func anHTMLRefreshReplyIsRefused() async {
        http.reply("/auth/refresh", status: 200, headers: [("Authorization", "Bearer at2")], body: "<html>hi</html>")
        await #expect {
            try await gateway.refresh(UseCaseSamples.session())
        } throws: { error in
            guard case .invalidResponse(let message) = error as? AuthenticationError else { return false }
            return message.contains("HTML")
        }
    }
}
