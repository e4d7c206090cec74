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
}
