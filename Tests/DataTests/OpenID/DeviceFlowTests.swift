import Data
import Domain
import Foundation
import OpenSSLCrypto
import TestSupport
import Testing

/// The device grant's polling (RFC 8628 §3.4–3.5): the server's interval, 5 s more on `slow_down`,
/// pending as waiting, denial as a refusal, expiry as a clear error; the sleeps recorded, not slept.
@Suite struct DeviceFlowTests {
    let clock = TestClock()
    let http = ScriptedHTTPClient()
    let slept = Locked<[TimeInterval]>([])

    func flow() async throws -> DeviceAuthorizationFlow {
        http.reply("/.well-known/openid-configuration", status: 200, body: #"""
            {"issuer":"https://id.example.com","token_endpoint":"https://id.example.com/token",
             "device_authorization_endpoint":"https://id.example.com/device"}
            """#)
        let client = http
        let metadata = try await OpenIDDiscovery(clients: { _ in client }).metadata(issuer: URL(string: "https://id.example.com")!)
        let gateway = OpenIDAuthenticationGateway(
            metadata: metadata, clientID: "tv", clients: { _ in client }, signatures: OpenSSLSignatureVerifier(), now: clock.now)
        let (clock, slept) = (clock, slept)
        return DeviceAuthorizationFlow(
            metadata: metadata, clientID: "tv", clients: { _ in client }, gateway: gateway,
            sleep: { seconds in
                slept.withLock { $0.append(seconds) }
                clock.advance(by: seconds)
            }, now: clock.now)
    }

    func deviceReply(interval: Int = 5, expiresIn: Int = 600) {
        http.reply("/device", status: 200, body: #"""
            {"device_code":"dc-secret","user_code":"WDJB-MJHT","verification_uri":"https://id.example.com/activate",
             "verification_uri_complete":"https://id.example.com/activate?user_code=WDJB-MJHT","expires_in":\#(expiresIn),"interval":\#(interval)}
            """#)
    }

    func deviceReply(verificationURI: String, complete: String) {
        let body: [String: Any] = [
            "device_code": "dc-secret", "user_code": "WDJB-MJHT", "verification_uri": verificationURI,
            "verification_uri_complete": complete, "expires_in": 600, "interval": 5,
        ]
        http.reply("/device", status: 200, body: (try? JSONSerialization.data(withJSONObject: body)) ?? Data())
    }

    /// A verification URI is printed for the user as the server sent it: one carrying a terminal escape
    /// (which `URL(string:)` accepts, percent-encoding it) is refused, and a complete URI of that kind is
    /// left out, never shown.
    @Test func aVerificationURIWithAControlCharacterIsNeverShown() async throws {
        deviceReply(verificationURI: "https://id.example.com/activate\u{1B}]0;owned\u{07}", complete: "https://id.example.com/a")
        await #expect(throws: AuthenticationError.invalidResponse("the verification_uri is not an https URL")) {
            _ = try await flow().start(scope: "profile")
        }
    }

    @Test func aCompleteURIWithAControlCharacterIsLeftOut() async throws {
        deviceReply(verificationURI: "https://id.example.com/activate", complete: "https://id.example.com/a\u{1B}[2J")
        let authorization = try await flow().start(scope: "profile")
        #expect(authorization.verificationURI == "https://id.example.com/activate")
        #expect(authorization.verificationURIComplete == nil)
    }

    /// RFC 8628 §3.5: never poll faster than the server asks, however slow that is.
    @Test func aLongIntervalIsKept() async throws {
        deviceReply(interval: 120, expiresIn: 600)
        http.reply("/token", status: 200, body: #"{"access_token":"at1","token_type":"Bearer","expires_in":300,"refresh_token":"rt1"}"#)
        let flow = try await flow()
        _ = try await flow.waitForApproval(try await flow.start(scope: "profile"))
        #expect(slept.withLock { $0 } == [120])
    }

    func tokenError(_ code: String) { http.reply("/token", status: 400, body: #"{"error":"\#(code)"}"#) }

    @Test func pendingThenSlowDownThenApproval() async throws {
        deviceReply()
        tokenError("authorization_pending")
        tokenError("slow_down")
        tokenError("authorization_pending")
        http.reply("/token", status: 200, body: #"{"access_token":"at1","token_type":"Bearer","expires_in":300,"refresh_token":"rt1"}"#)
        let flow = try await flow()
        let authorization = try await flow.start(scope: "profile")
        #expect(authorization.userCode == "WDJB-MJHT" && authorization.verificationURIComplete != nil)
        let session = try await flow.waitForApproval(authorization)
        #expect(session.method == .deviceCode && session.refreshToken.value.revealedString() == "rt1")
        #expect(slept.withLock { $0 } == [5, 5, 10, 10])
        let polls = http.requests.filter { $0.path == "/token" }
        #expect(polls.count == 4)
        let form = FormBodyProbe.fields(polls[0].body)
        #expect(form["grant_type"] == "urn:ietf:params:oauth:grant-type:device_code" && form["device_code"] == "dc-secret")
    }

    @Test func aDenialIsARefusal() async throws {
        deviceReply()
        tokenError("access_denied")
        let flow = try await flow()
        await #expect(throws: AuthenticationError.invalidCredentials("the sign-in was refused on the other device")) {
            try await flow.waitForApproval(try await flow.start(scope: "profile"))
        }
    }

    @Test func theWaitStopsAtExpiry() async throws {
        deviceReply(interval: 5, expiresIn: 30)
        tokenError("authorization_pending")
        let flow = try await flow()
        await #expect(
            throws: AuthenticationError.rejected(
                status: 400, reason: "expired_token: the device code expired before it was approved")
        ) {
            try await flow.waitForApproval(try await flow.start(scope: "profile"))
        }
        #expect(slept.withLock { $0.reduce(0, +) } <= 30)
        #expect(http.requests.filter { $0.path == "/token" }.count == 5)
    }

    @Test func anExpiredTokenErrorIsClear() async throws {
        deviceReply()
        tokenError("expired_token")
        let flow = try await flow()
        await #expect(throws: AuthenticationError.rejected(status: 400, reason: "expired_token: the device code expired")) {
            try await flow.waitForApproval(try await flow.start(scope: "profile"))
        }
    }

    @Test func anIssuerWithoutADeviceEndpointIsSaidSo() async throws {
        http.reply("/.well-known/openid-configuration", status: 200, body: #"{"issuer":"https://id.example.com","token_endpoint":"https://id.example.com/token"}"#)
        let client = http
        let metadata = try await OpenIDDiscovery(clients: { _ in client }).metadata(issuer: URL(string: "https://id.example.com")!)
        let gateway = OpenIDAuthenticationGateway(
            metadata: metadata, clientID: "tv", clients: { _ in client }, signatures: OpenSSLSignatureVerifier(), now: clock.now)
        let flow = DeviceAuthorizationFlow(
            metadata: metadata, clientID: "tv", clients: { _ in client }, gateway: gateway, sleep: { _ in }, now: clock.now)
        await #expect(
            throws: AuthenticationError.unsupported("the issuer has no device authorization endpoint")
        ) { try await flow.start(scope: "profile") }
    }
}
