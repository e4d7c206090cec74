import Data
import Domain
import Foundation
import TestSupport
import Testing

/// Real servers send identifiers as JSON numbers or strings; both are accepted wherever one is read,
/// and every other rule of the strict decoding still holds.
@Suite struct IdentifierInteropTests {
    let clock = TestClock()
    let http = ScriptedHTTPClient()
    var header: HeaderAuthenticationGateway { HeaderAuthenticationGateway(http: http, clientID: "demo-app", now: clock.now) }
    var oauth: OAuthAuthenticationGateway { OAuthAuthenticationGateway(http: http, clientID: "demo-app", now: clock.now) }
    let credentials = Credentials.password(username: "alice", password: SecretBytes(utf8: "wonderland"))
    let tokenHeaders = [("Authorization", "Bearer at1"), ("Authorization-refresh", "rt1")]

    @Test(arguments: [
        (#"{"userId": 1, "nickname": "Alice"}"#, "1"),
        (#"{"userId":"1","nickname":"Alice"}"#, "1"),
        (#"{"userId": 9007199254740993, "nickname": "Alice"}"#, "9007199254740993"),
        (#"{"userId": 18446744073709551615, "nickname": "Alice"}"#, "18446744073709551615"),
        (#"{"userId": -7, "nickname": "Alice"}"#, "-7"),
        (#"{"userId":"apple:001","nickname":"Alice"}"#, "apple:001"),
    ])
    func aHeaderSignInTakesTheUserIdAsANumberOrAString(_ body: String, _ id: String) async throws {
        http.reply("/auth/signin", status: 200, headers: tokenHeaders, body: body)
        let session = try await header.signIn(credentials)
        #expect(session.user == User(id: id, name: "Alice"))
        #expect(session.accessToken.value.revealedString() == "at1")
        #expect(session.refreshToken.value.revealedString() == "rt1")
    }

    @Test(arguments: [
        (#"{"userId": 1.5, "nickname": "Alice"}"#, "expected JSON"),
        (#"{"userId": true, "nickname": "Alice"}"#, "expected JSON"),
        (#"{"userId": {"id": 1}, "nickname": "Alice"}"#, "expected JSON"),
        (#"{"userId": [1], "nickname": "Alice"}"#, "expected JSON"),
        (#"{"userId": 1, "nickname": 2}"#, "expected JSON"),
        (#"{"userId": null, "nickname": "Alice"}"#, "userId"),
        (#"{"userId": "", "nickname": "Alice"}"#, "userId"),
    ])
    func otherShapesAreStillRefused(_ body: String, _ reason: String) async {
        http.reply("/auth/signin", status: 200, headers: tokenHeaders, body: body)
        await #expect {
            try await header.signIn(credentials)
        } throws: { error in
            guard case .invalidResponse(let message) = error as? AuthenticationError else { return false }
            return message.contains(reason)
        }
    }

    @Test(arguments: [
        (#"{"sub": 42, "name": "Alice"}"#, User(id: "42", name: "Alice")),
        (#"{"sub": "42", "name": "Alice"}"#, User(id: "42", name: "Alice")),
        (#"{"id": 1, "nickname": "Alice"}"#, User(id: "1", name: "Alice")),
        (#"{"id": "1", "nickname": "Alice"}"#, User(id: "1", name: "Alice")),
        (#"{"userId": 1, "nickname": "Alice"}"#, User(id: "1", name: "Alice")),
        (#"{"sub": "s", "id": 2, "userId": 3}"#, User(id: "s", name: "")),
        (#"{"id": 2, "userId": 3, "name": "A", "nickname": "B"}"#, User(id: "2", name: "A")),
    ])
    func meTakesSubIdOrUserIdAsANumberOrAString(_ body: String, _ user: User) async throws {
        http.reply("/api/me", status: 200, body: body)
        let token = try AccessToken(value: SecretBytes(utf8: "at1"), issuedAt: clock.date, expiresAt: nil)
        guard case .success(let found) = try await ProfileAPI(http: http).me(token) else {
            Issue.record("the reply was not a success")
            return
        }
        #expect(found == user)
    }

    @Test(arguments: [#"{"name": "Alice"}"#, #"{"sub": ""}"#, #"{"sub": 1.25}"#, #"{"id": false}"#])
    func meWithoutAUsableIdentifierIsRefused(_ body: String) async throws {
        http.reply("/api/me", status: 200, body: body)
        let token = try AccessToken(value: SecretBytes(utf8: "at1"), issuedAt: clock.date, expiresAt: nil)
        await #expect(throws: AuthenticationError.self) { try await ProfileAPI(http: http).me(token) }
    }

    @Test func anOAuthSignInTakesANumericSubFromMe() async throws {
        http.reply(
            "/oauth/token", status: 200,
            body: #"{"access_token":"at1","token_type":"Bearer","expires_in":300,"refresh_token":"rt1"}"#)
        http.reply("/api/me", status: 200, body: #"{"sub": 7, "name": "Alice"}"#)
        let session = try await oauth.signIn(credentials)
        #expect(session.user == User(id: "7", name: "Alice"))
    }
}
