import Data
import DevelopmentServers
import Foundation
import Testing

/// The embedded server's device grant: pending until decided, `slow_down` when polled too fast,
/// `access_denied` after a refusal, `expired_token` after the code's lifetime, tokens once.
@Suite struct DeviceEndpointTests {
    let server = EmbeddedAuthServer()

    func start() async throws -> (device: String, user: String) {
        let reply = await server.handle(Requests.form("/oauth/device_authorization", [("client_id", Requests.clientID)]))
        let object = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])
        #expect(object["interval"] as? Int == 5 && object["expires_in"] as? Int == 600)
        return (try #require(object["device_code"] as? String), try #require(object["user_code"] as? String))
    }

    func poll(_ device: String) async -> String {
        let reply = await server.handle(Requests.form(
            "/oauth/token",
            [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", device), ("client_id", Requests.clientID)]))
        if reply.status == 200 { return "tokens" }
        return (try? JSONSerialization.jsonObject(with: reply.body) as? [String: Any])?["error"] as? String ?? "?"
    }

    @Test func pendingSlowDownThenTokensOnce() async throws {
        let (device, user) = try await start()
        #expect(await poll(device) == "authorization_pending")
        #expect(await poll(device) == "slow_down")
        server.clock.advance(by: 5)
        #expect(await poll(device) == "authorization_pending")
        #expect(await server.decideDeviceCode(user, approvedBy: "alice"))
        #expect(await poll(device) == "tokens")
        #expect(await poll(device) == "invalid_grant")
    }

    @Test func aRefusalIsAccessDenied() async throws {
        let (device, user) = try await start()
        #expect(await server.decideDeviceCode(user, approvedBy: nil))
        #expect(await poll(device) == "access_denied")
    }

    @Test func anOldCodeIsExpiredToken() async throws {
        let (device, user) = try await start()
        server.clock.advance(by: 601)
        #expect(await !server.decideDeviceCode(user, approvedBy: "alice"))
        #expect(await poll(device) == "expired_token")
    }

    /// With `openid` in the scope the tokens come with an ID token for the approving user, without a
    /// nonce (the device grant has none); without it, none.
    @Test(arguments: [true, false])
    func anIDTokenComesWhenOpenIDIsAsked(_ openID: Bool) async throws {
        var fields = [("client_id", Requests.clientID)]
        if openID { fields.append(("scope", "openid profile")) }
        let started = await server.handle(Requests.form("/oauth/device_authorization", fields))
        let object = try #require(try JSONSerialization.jsonObject(with: started.body) as? [String: Any])
        let device = try #require(object["device_code"] as? String)
        let userCode = try #require(object["user_code"] as? String)
        #expect(await server.decideDeviceCode(userCode, approvedBy: "alice"))
        let reply = await server.handle(Requests.form(
            "/oauth/token",
            [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", device), ("client_id", Requests.clientID)]))
        #expect(reply.status == 200)
        let tokens = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])
        let idToken = tokens["id_token"] as? String
        #expect((idToken != nil) == openID)
        if let idToken {
            let payload = String(idToken.split(separator: ".")[1])
            var base64 = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            let decoded = try #require(Data(base64Encoded: base64))
            let claims = try #require(try JSONSerialization.jsonObject(with: decoded) as? [String: Any])
            #expect(claims["sub"] as? String == "alice" && claims["aud"] as? String == Requests.clientID)
            #expect(claims["nonce"] == nil)
        }
    }
}
