import Data
import Foundation
import DevelopmentServers
import Testing

@Suite struct AuthServerBehaviourTests {
    @Test func unknownPathsAre404AndWrongMethods405() async {
        let server = EmbeddedAuthServer()
        let missing = await server.handle(HTTPRequest(method: "GET", path: "/nowhere"))
        #expect(missing.status == 404)
        #expect(missing.string("error") == "not_found")
        let getToken = await server.handle(HTTPRequest(method: "GET", path: "/oauth/token"))
        #expect(getToken.status == 405)
        #expect(getToken.headers["Allow"] == "POST")
        let postMe = await server.handle(HTTPRequest(method: "POST", path: "/api/me"))
        #expect(postMe.status == 405)
        #expect(postMe.headers["Allow"] == "GET")
        #expect(await server.handle(HTTPRequest(method: "GET", path: "/api/me/")).status == 404)
        #expect(await server.handle(HTTPRequest(method: "DELETE", path: "/auth/signin")).status == 405)
    }

    @Test func queryStringsDoNotChangeTheRoute() async {
        let server = EmbeddedAuthServer()
        var request = Requests.passwordGrant()
        request.path = "/oauth/token?trace=1"
        #expect(await server.handle(request).status == 200)
    }

    @Test func failureSwitches() async throws {
        let server = EmbeddedAuthServer()
        let transport = EmbeddedAuthServerTransport(server: server)

        await server.respondWith(.serverError)
        #expect(try await transport.send(Requests.passwordGrant()).status == 503)
        #expect(await server.handle(HTTPRequest(method: "GET", path: "/debug/stats")).status == 503)

        await server.respondWith(.garbage)
        let garbage = try await transport.send(Requests.passwordGrant())
        #expect(garbage.status == 200)
        #expect(garbage.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(garbage.string("access_token") == nil)

        await server.respondWith(.down)
        await #expect(throws: HTTPClientError.cannotConnect("connection refused")) {
            try await transport.send(Requests.passwordGrant())
        }
        #expect(await server.handle(Requests.passwordGrant()).status == 503)
        #expect(await server.failure == .down)

        await server.respondWith(.none)
        #expect(try await transport.send(Requests.passwordGrant()).status == 200)
        #expect(await server.counters.signIns == 1)
    }

    @Test func statsEndpointServesTheCounters() async throws {
        let server = EmbeddedAuthServer()
        let tokens = await server.handle(Requests.passwordGrant())
        _ = await server.handle(Requests.me(tokens.string("access_token") ?? ""))
        _ = await server.handle(Requests.me("nope"))
        let reply = await server.handle(HTTPRequest(method: "GET", path: "/debug/stats"))
        #expect(reply.status == 200)
        let served = try JSONDecoder().decode(AuthServerCounters.self, from: reply.body)
        #expect(served == AuthServerCounters(signIns: 1, meCalls: 2, unauthorized: 1))
        #expect(await server.counters == served)
        #expect(reply.string("reuseDetections") == nil && reply.object["reuseDetections"] as? Int == 0)
    }

    @Test func descriptionsNeverShowSecrets() async {
        let server = EmbeddedAuthServer()
        #expect(!"\(AuthServerUser.alice)".contains("wonderland"))
        var dumped = ""
        dump(AuthServerOptions(), to: &dumped)
        #expect(!dumped.contains("wonderland"))
        #expect(!"\(AuthServerOptions())".contains("wonderland"))
        #expect(dumped.contains("alice"))
        #expect(!server.description.contains("wonderland"))
        let reply = await server.handle(Requests.passwordGrant())
        let access = reply.string("access_token") ?? "missing"
        #expect(!reply.description.contains(access))
        #expect(!Requests.me(access).description.contains(access))
    }

    @Test func clockAdvancesOnlyWhenTold() {
        let start = Date(timeIntervalSince1970: 1_000)
        let clock = ServerClock(start: start)
        #expect(clock.now == start)
        clock.advance(by: 90)
        clock.advance(by: 10)
        #expect(clock.now == start.addingTimeInterval(100))
    }
}
