import Data
import Foundation
import DevelopmentServers
import Testing

@Suite struct HeaderStyleContractTests {
    let clock = ServerClock(start: Date(timeIntervalSince1970: 1_700_000_000))
    let signIn = Requests.json("/auth/signin", ["username": "alice", "password": "wonderland"])

    @Test func signInPutsTokensInHeadersByDefault() async {
        let server = EmbeddedAuthServer(clock: clock)
        let reply = await server.handle(signIn)
        #expect(reply.status == 200)
        #expect(reply.string("userId") == "alice")
        #expect(reply.string("nickname") == "Alice Liddell")
        #expect(reply.object["refreshToken"] == nil)
        let authorization = reply.headers["Authorization"] ?? ""
        #expect(authorization.hasPrefix("Bearer "))
        let refresh = reply.headers["Authorization-refresh"] ?? ""
        #expect(refresh.utf8.count == 43)
        #expect(reply.headers["Cache-Control"] == "no-store")
        let me = await server.handle(Requests.me(authorization: authorization))
        #expect(me.string("sub") == "alice")
        #expect(await server.counters.signIns == 1)
    }

    @Test func refreshTokenCanComeInTheBody() async {
        let server = EmbeddedAuthServer(options: AuthServerOptions(refreshTokenPlacement: .body), clock: clock)
        let reply = await server.handle(signIn)
        #expect(reply.headers["Authorization-refresh"] == nil)
        let refresh = reply.string("refreshToken") ?? ""
        #expect(refresh.utf8.count == 43)
        let refreshed = await server.handle(Requests.headerRefresh(refresh))
        #expect(refreshed.status == 200)
        #expect(refreshed.string("refreshToken") != refresh)
        #expect(refreshed.string("userId") == "alice")
    }

    @Test func bareAuthorizationStyleOmitsTheScheme() async {
        let server = EmbeddedAuthServer(options: AuthServerOptions(authorizationStyle: .bare), clock: clock)
        let reply = await server.handle(signIn)
        let token = reply.headers["Authorization"] ?? ""
        #expect(!token.hasPrefix("Bearer"))
        #expect(token.split(separator: ".").count == 3)
        #expect(await server.handle(Requests.me(authorization: token)).status == 200)
        #expect(await server.handle(Requests.me(token)).status == 200)
    }

    @Test func bearerStyleServerRefusesABareToken() async {
        let server = EmbeddedAuthServer(clock: clock)
        let token = String((await server.handle(signIn)).headers["Authorization"]?.dropFirst("Bearer ".count) ?? "")
        #expect(await server.handle(Requests.me(authorization: token)).status == 401)
    }

    @Test func badCredentialsAndBadBodies() async {
        let server = EmbeddedAuthServer(clock: clock)
        let wrong = await server.handle(Requests.json("/auth/signin", ["username": "alice", "password": "nope"]))
        #expect(wrong.status == 401)
        #expect(wrong.string("error") == "invalid_grant")
        #expect(wrong.headers["Authorization"] == nil)
        let partial = await server.handle(Requests.json("/auth/signin", ["username": "alice"]))
        #expect(partial.status == 400)
        let notJSON = await server.handle(HTTPRequest(method: "POST", path: "/auth/signin", body: Data("alice".utf8)))
        #expect(notJSON.status == 400)
        #expect(await server.counters.signIns == 0)
    }

    @Test func refreshRotatesAndDetectsReuse() async {
        let server = EmbeddedAuthServer(clock: clock)
        let first = await server.handle(signIn)
        let refresh0 = first.headers["Authorization-refresh"] ?? ""
        let second = await server.handle(Requests.headerRefresh(refresh0))
        #expect(second.status == 200)
        let refresh1 = second.headers["Authorization-refresh"] ?? ""
        #expect(!refresh1.isEmpty && refresh1 != refresh0)
        let access1 = second.headers["Authorization"] ?? ""
        #expect(await server.handle(Requests.me(authorization: access1)).status == 200)

        let replay = await server.handle(Requests.headerRefresh(refresh0))
        #expect(replay.status == 401)
        #expect(replay.string("error") == "invalid_grant")
        #expect(await server.handle(Requests.headerRefresh(refresh1)).status == 401)
        #expect(await server.handle(Requests.me(authorization: access1)).status == 401)
        #expect(await server.counters.reuseDetections == 1)
        #expect(await server.counters.refreshes == 1)
    }

    @Test func refreshAcceptsABearerPrefixAndNeedsAToken() async {
        let server = EmbeddedAuthServer(clock: clock)
        let refresh = (await server.handle(signIn)).headers["Authorization-refresh"] ?? ""
        #expect(await server.handle(Requests.headerRefresh("Bearer \(refresh)")).status == 200)
        let missing = await server.handle(HTTPRequest(method: "POST", path: "/auth/refresh"))
        #expect(missing.status == 400)
        #expect(missing.string("error") == "invalid_request")
    }

    @Test func identityProviderSignInMapsTokensToStableUsers() async {
        let server = EmbeddedAuthServer(clock: clock)
        let apple = await server.handle(Requests.json("/auth/signin/apple", ["identityToken": "eyJ.apple.token"]))
        #expect(apple.status == 200)
        let userID = apple.string("userId") ?? ""
        #expect(userID.hasPrefix("apple:"))
        #expect(userID.dropFirst("apple:".count).count == 16)
        #expect(apple.string("nickname") == "Apple user")
        let again = await server.handle(Requests.json("/auth/signin/apple", ["identityToken": "eyJ.apple.token"]))
        #expect(again.string("userId") == userID)
        let google = await server.handle(Requests.json("/auth/signin/google", ["identityToken": "eyJ.apple.token"]))
        #expect(google.string("userId")?.hasPrefix("google:") == true)
        let me = await server.handle(Requests.me(authorization: apple.headers["Authorization"]))
        #expect(me.string("sub") == userID)
        #expect(await server.counters.signIns == 3)
    }

    @Test func identityProviderRefusals() async {
        let server = EmbeddedAuthServer(clock: clock)
        for token in ["invalid", ""] {
            let reply = await server.handle(Requests.json("/auth/signin/google", ["identityToken": token]))
            #expect(reply.status == 401)
            #expect(reply.string("error") == "invalid_grant")
        }
        #expect(await server.handle(Requests.json("/auth/signin/facebook", ["identityToken": "t"])).status == 404)
        #expect(await server.handle(Requests.json("/auth/signin/apple", ["token": "t"])).status == 400)
        #expect(await server.handle(HTTPRequest(method: "GET", path: "/auth/signin/apple")).status == 405)
        let custom = EmbeddedAuthServer(options: AuthServerOptions(identityProviders: ["github"]), clock: clock)
        #expect(await custom.handle(Requests.json("/auth/signin/github", ["identityToken": "t"])).status == 200)
        #expect(await custom.handle(Requests.json("/auth/signin/apple", ["identityToken": "t"])).status == 404)
        #expect(await server.counters.signIns == 0)
    }
}
