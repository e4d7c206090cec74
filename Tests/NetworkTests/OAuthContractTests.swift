import Data
import Foundation
import DevelopmentServers
import Testing

@Suite struct OAuthContractTests {
    let clock = ServerClock(start: Date(timeIntervalSince1970: 1_700_000_000))

    @Test func passwordGrantIssuesTokensThatOpenApiMe() async {
        let server = EmbeddedAuthServer(clock: clock)
        let reply = await server.handle(Requests.passwordGrant())
        #expect(reply.status == 200)
        #expect(reply.headers["Cache-Control"] == "no-store")
        #expect(reply.headers["Content-Type"]?.hasPrefix("application/json") == true)
        #expect(reply.string("token_type") == "Bearer")
        #expect(reply.object["expires_in"] as? Int == 300)
        #expect(reply.string("scope") == "profile")
        let refresh = reply.string("refresh_token") ?? ""
        #expect(refresh.utf8.count == 43)  // 32 random bytes, unpadded base64url
        let me = await server.handle(Requests.me(reply.string("access_token") ?? ""))
        #expect(me.status == 200)
        #expect(me.string("sub") == "alice")
        #expect(me.string("name") == "Alice Liddell")
        #expect(await server.counters == AuthServerCounters(signIns: 1, meCalls: 1))
    }

    @Test func badPasswordOrUnknownUserIsInvalidGrant() async {
        let server = EmbeddedAuthServer(clock: clock)
        for request in [Requests.passwordGrant(password: "wonderlanD"), Requests.passwordGrant(username: "bob")] {
            let reply = await server.handle(request)
            #expect(reply.status == 400)
            #expect(reply.string("error") == "invalid_grant")
            #expect(reply.string("error_description") != nil)
            #expect(reply.headers["Cache-Control"] == "no-store")
        }
        #expect(await server.counters.signIns == 0)
    }

    @Test func unknownClientIsInvalidClient() async {
        let server = EmbeddedAuthServer(clock: clock)
        let reply = await server.handle(Requests.passwordGrant(clientID: "mallory-app"))
        #expect(reply.status == 401)
        #expect(reply.string("error") == "invalid_client")
        #expect(await server.counters.unauthorized == 1)
        let missing = await server.handle(
            Requests.form(
                "/oauth/token", [("grant_type", "password"), ("username", "alice"), ("password", "wonderland")]))
        #expect(missing.status == 400)
        #expect(missing.string("error") == "invalid_request")
    }

    @Test func nonFormBodiesAreInvalidRequests() async {
        let server = EmbeddedAuthServer(clock: clock)
        let json = Requests.json(
            "/oauth/token",
            ["grant_type": "password", "username": "alice", "password": "wonderland", "client_id": Requests.clientID])
        var duplicated = Requests.passwordGrant()
        duplicated.body.append(Data("&password=other".utf8))
        var badEscape = Requests.passwordGrant()
        badEscape.body.append(Data("&scope=%ZZ".utf8))
        var noContentType = Requests.passwordGrant()
        noContentType.headers["Content-Type"] = nil
        for request in [json, duplicated, badEscape, noContentType] {
            let reply = await server.handle(request)
            #expect(reply.status == 400)
            #expect(reply.string("error") == "invalid_request")
        }
        var withCharset = Requests.passwordGrant()
        withCharset.headers["Content-Type"] = "application/x-www-form-urlencoded; charset=UTF-8"
        #expect(await server.handle(withCharset).status == 200)
    }

    @Test func missingOrUnknownGrantTypes() async {
        let server = EmbeddedAuthServer(clock: clock)
        let missing = await server.handle(Requests.form("/oauth/token", [("client_id", Requests.clientID)]))
        #expect(missing.string("error") == "invalid_request")
        let unknown = await server.handle(
            Requests.form("/oauth/token", [("grant_type", "client_credentials"), ("client_id", Requests.clientID)]))
        #expect(unknown.status == 400)
        #expect(unknown.string("error") == "unsupported_grant_type")
        let noPassword = await server.handle(
            Requests.form(
                "/oauth/token", [("grant_type", "password"), ("username", "alice"), ("client_id", Requests.clientID)]))
        #expect(noPassword.string("error") == "invalid_request")
    }

    @Test func refreshRotatesAndReuseRevokesTheFamily() async {
        let server = EmbeddedAuthServer(clock: clock)
        let first = await server.handle(Requests.passwordGrant())
        let access0 = first.string("access_token") ?? ""
        let refresh0 = first.string("refresh_token") ?? ""

        let second = await server.handle(Requests.refreshGrant(refresh0))
        #expect(second.status == 200)
        let access1 = second.string("access_token") ?? ""
        let refresh1 = second.string("refresh_token") ?? ""
        #expect(refresh1 != refresh0 && !refresh1.isEmpty)
        #expect(access1 != access0)
        #expect(await server.handle(Requests.me(access1)).status == 200)

        let replay = await server.handle(Requests.refreshGrant(refresh0))
        #expect(replay.status == 400)
        #expect(replay.string("error") == "invalid_grant")
        // The whole family is dead: the newest refresh token and every access token from it.
        #expect(await server.handle(Requests.refreshGrant(refresh1)).string("error") == "invalid_grant")
        #expect(await server.handle(Requests.me(access1)).status == 401)
        #expect(await server.handle(Requests.me(access0)).status == 401)
        let counters = await server.counters
        #expect(counters.reuseDetections == 1)
        #expect(counters.refreshes == 1)
        #expect(counters.signIns == 1)
    }

    @Test func reuseRevokesOnlyItsOwnFamily() async {
        let server = EmbeddedAuthServer(clock: clock)
        let a = await server.handle(Requests.passwordGrant())
        let b = await server.handle(Requests.passwordGrant())
        _ = await server.handle(Requests.refreshGrant(a.string("refresh_token") ?? ""))
        _ = await server.handle(Requests.refreshGrant(a.string("refresh_token") ?? ""))
        #expect(await server.handle(Requests.me(a.string("access_token") ?? "")).status == 401)
        #expect(await server.handle(Requests.me(b.string("access_token") ?? "")).status == 200)
        #expect(await server.handle(Requests.refreshGrant(b.string("refresh_token") ?? "")).status == 200)
    }

    @Test func refreshTokensExpireOnTheClock() async {
        let server = EmbeddedAuthServer(options: AuthServerOptions(refreshTokenLifetime: 3_600), clock: clock)
        let first = await server.handle(Requests.passwordGrant())
        clock.advance(by: 3_601)
        let reply = await server.handle(Requests.refreshGrant(first.string("refresh_token") ?? ""))
        #expect(reply.status == 400)
        #expect(reply.string("error") == "invalid_grant")
        #expect(await server.counters.refreshes == 0)
    }

    @Test func unknownRefreshTokenAndOtherClientsTokenAreInvalidGrant() async {
        let server = EmbeddedAuthServer(options: AuthServerOptions(clientIDs: ["app-a", "app-b"]), clock: clock)
        #expect(
            await server.handle(Requests.refreshGrant("bm90LWEtdG9rZW4", clientID: "app-a")).string("error")
                == "invalid_grant")
        let issued = await server.handle(Requests.passwordGrant(clientID: "app-a"))
        let stolen = await server.handle(Requests.refreshGrant(issued.string("refresh_token") ?? "", clientID: "app-b"))
        #expect(stolen.string("error") == "invalid_grant")
        #expect(
            await server.handle(Requests.refreshGrant(issued.string("refresh_token") ?? "", clientID: "app-a")).status
                == 200)
    }

    @Test func revokingARefreshTokenEndsTheSession() async {
        let server = EmbeddedAuthServer(clock: clock)
        let first = await server.handle(Requests.passwordGrant())
        let access = first.string("access_token") ?? ""
        let refresh = first.string("refresh_token") ?? ""
        let revoke = await server.handle(
            Requests.form(
                "/oauth/revoke",
                [("token", refresh), ("token_type_hint", "refresh_token"), ("client_id", Requests.clientID)]))
        #expect(revoke.status == 200)
        #expect(await server.handle(Requests.refreshGrant(refresh)).string("error") == "invalid_grant")
        #expect(await server.handle(Requests.me(access)).status == 401)
        #expect(await server.counters.revocations == 1)
        #expect(await server.counters.reuseDetections == 0)
    }

    @Test func revokingAnAccessTokenEndsItsFamilyToo() async {
        let server = EmbeddedAuthServer(clock: clock)
        let first = await server.handle(Requests.passwordGrant())
        let revoke = await server.handle(
            Requests.form(
                "/oauth/revoke", [("token", first.string("access_token") ?? ""), ("token_type_hint", "access_token")]))
        #expect(revoke.status == 200)
        #expect(await server.handle(Requests.refreshGrant(first.string("refresh_token") ?? "")).status == 400)
    }

    @Test func revokingUnknownTokensStillSucceeds() async {
        let server = EmbeddedAuthServer(clock: clock)
        let reply = await server.handle(
            Requests.form("/oauth/revoke", [("token", "never-issued"), ("token_type_hint", "refresh_token")]))
        #expect(reply.status == 200)
        #expect(await server.counters.revocations == 0)
        let missing = await server.handle(Requests.form("/oauth/revoke", [("token_type_hint", "refresh_token")]))
        #expect(missing.status == 400)
        #expect(missing.string("error") == "invalid_request")
        let badClient = await server.handle(Requests.form("/oauth/revoke", [("token", "x"), ("client_id", "nobody")]))
        #expect(badClient.status == 401)
        #expect(badClient.string("error") == "invalid_client")
    }
}
