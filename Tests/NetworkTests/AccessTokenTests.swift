import Data
import Foundation
import Testing
@testable import DevelopmentServers

@Suite struct AccessTokenTests {
    let clock = ServerClock(start: Date(timeIntervalSince1970: 1_700_000_000))
    var server: EmbeddedAuthServer { EmbeddedAuthServer(clock: clock) }

    func signIn(_ server: EmbeddedAuthServer) async -> (access: String, refresh: String) {
        let reply = await server.handle(Requests.passwordGrant())
        return (reply.string("access_token") ?? "", reply.string("refresh_token") ?? "")
    }

    @Test func validTokenIsAcceptedAndCarriesTheClaims() async throws {
        let server = self.server
        let (access, _) = await signIn(server)
        let reply = await server.handle(Requests.me(access))
        #expect(reply.status == 200)
        #expect(reply.string("sub") == "alice")
        #expect(reply.string("name") == "Alice Liddell")
        let payload = try #require(Base64URL.decode(access.split(separator: ".")[1]))
        let claims = try JSONDecoder().decode(AccessTokenClaims.self, from: Data(payload))
        #expect(claims.exp - claims.iat == 300)
        #expect(claims.iat == 1_700_000_000)
        #expect(!claims.jti.isEmpty && !claims.fam.isEmpty)
    }

    @Test func tamperedPayloadOrSignatureGets401() async {
        let server = self.server
        let (access, _) = await signIn(server)
        for part in [1, 2] {
            let reply = await server.handle(Requests.me(JSONWebTokenTests.tamper(access, part: part)))
            #expect(reply.status == 401)
            #expect(reply.headers["WWW-Authenticate"] == #"Bearer error="invalid_token""#)
            #expect(reply.string("error") == "invalid_token")
        }
    }

    @Test func algNoneTokenGets401() async {
        let server = self.server
        let (access, _) = await signIn(server)
        let parts = access.split(separator: ".")
        let none = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        for forged in ["\(none).\(parts[1]).", "\(none).\(parts[1]).\(parts[2])"] {
            #expect(await server.handle(Requests.me(forged)).status == 401)
        }
    }

    @Test func expiryFollowsTheClock() async {
        let server = self.server
        let (access, _) = await signIn(server)
        clock.advance(by: 299)
        #expect(await server.handle(Requests.me(access)).status == 200)
        clock.advance(by: 2)
        let reply = await server.handle(Requests.me(access))
        #expect(reply.status == 401)
        #expect(reply.headers["WWW-Authenticate"] == #"Bearer error="invalid_token""#)
        #expect(reply.string("error_description")?.contains("expired") == true)
    }

    @Test func lifetimeIsConfigurable() async {
        let server = EmbeddedAuthServer(options: AuthServerOptions(accessTokenLifetime: 60), clock: clock)
        let reply = await server.handle(Requests.passwordGrant())
        #expect(reply.object["expires_in"] as? Int == 60)
        clock.advance(by: 61)
        #expect(await server.handle(Requests.me(reply.string("access_token") ?? "")).status == 401)
    }

    @Test func refreshedTokensMayLiveLongerThanTheFirst() async {
        var options = AuthServerOptions(accessTokenLifetime: 2)
        options.refreshedAccessTokenLifetime = 3600
        let server = EmbeddedAuthServer(options: options, clock: clock)
        let first = await server.handle(Requests.passwordGrant())
        #expect(first.object["expires_in"] as? Int == 2)
        let refreshed = await server.handle(Requests.refreshGrant(first.string("refresh_token") ?? ""))
        #expect(refreshed.object["expires_in"] as? Int == 3600)
        let again = await server.handle(Requests.refreshGrant(refreshed.string("refresh_token") ?? ""))
        #expect(again.object["expires_in"] as? Int == 3600, "every refreshed generation")
        clock.advance(by: 3)
        #expect(await server.handle(Requests.me(first.string("access_token") ?? "")).status == 401)
        #expect(await server.handle(Requests.me(again.string("access_token") ?? "")).status == 200)
    }

    @Test func missingOrMalformedAuthorizationGets401() async {
        let server = self.server
        let (access, _) = await signIn(server)
        for authorization in [
            nil, "", "Bearer", "Basic YWxpY2U6d29uZGVybGFuZA==", access, "Bearer x.y.z", "Bearer \(access) extra",
        ] {
            let reply = await server.handle(Requests.me(authorization: authorization))
            #expect(reply.status == 401, "\(authorization ?? "none")")
            #expect(reply.headers["WWW-Authenticate"] == #"Bearer error="invalid_token""#)
        }
        #expect(await server.handle(Requests.me(authorization: "bearer \(access)")).status == 200)
        let counters = await server.counters
        #expect(counters.meCalls == 8)
        #expect(counters.unauthorized == 7)
    }

    @Test func anotherServersTokenGets401() async {
        let (access, _) = await signIn(EmbeddedAuthServer(clock: clock))
        #expect(await server.handle(Requests.me(access)).status == 401)
    }
}
