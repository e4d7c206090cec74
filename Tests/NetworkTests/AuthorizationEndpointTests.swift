import Data
import DevelopmentServers
import Foundation
import OpenSSLCrypto
import Testing

/// The embedded server's side of the code flow: the login form, PKCE S256 required, single-use
/// codes bound to their client and redirect URI, and ID tokens that verify against its JWKS, across a
/// key rotation.
@Suite struct AuthorizationEndpointTests {
    let server = EmbeddedAuthServer()
    let redirectURI = "http://127.0.0.1:4000/callback"
    let verifier = String(repeating: "v", count: 43)
    let host = HTTPHeaders([("Host", "127.0.0.1:9999")])

    var challenge: String {
        get throws {
            try OpenSSLRandom.sha256(Data(verifier.utf8)).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
    }

    func authorize(decision: String = "approve", challenge: String? = nil, redirect: String? = nil) async throws
        -> HTTPResponse
    {
        var request = Requests.form(
            "/oauth/authorize",
            [
                ("response_type", "code"), ("client_id", Requests.clientID), ("redirect_uri", redirect ?? redirectURI),
                ("state", "s1"), ("code_challenge", try challenge ?? self.challenge), ("code_challenge_method", "S256"),
                ("nonce", "n1"), ("username", "alice"), ("password", "wonderland"), ("decision", decision),
            ])
        request.headers["Host"] = "127.0.0.1:9999"
        return await server.handle(request)
    }

    func code(from response: HTTPResponse) throws -> String {
        let location = try #require(response.headers["Location"])
        let items = URLComponents(string: location)?.queryItems ?? []
        #expect(items.first { $0.name == "state" }?.value == "s1")
        #expect(items.first { $0.name == "iss" }?.value == "http://127.0.0.1:9999")
        return try #require(items.first { $0.name == "code" }?.value)
    }

    func exchange(_ code: String, verifier: String? = nil) async -> HTTPResponse {
        var request = Requests.form(
            "/oauth/token",
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                ("code_verifier", verifier ?? self.verifier), ("client_id", Requests.clientID),
            ])
        request.headers["Host"] = "127.0.0.1:9999"
        return await server.handle(request)
    }

    @Test func theFormIsShownAndAnApprovalRedirectsWithACode() async throws {
        let form = await server.handle(HTTPRequest(
            method: "GET",
            path: "/oauth/authorize?response_type=code&client_id=\(Requests.clientID)&redirect_uri=http%3A%2F%2F127.0.0.1%3A4000%2Fcallback&state=s1&code_challenge=\(try challenge)&code_challenge_method=S256",
            headers: host))
        #expect(form.status == 200)
        #expect(String(decoding: form.body, as: UTF8.self).contains(#"name="password" type="password""#))
        let response = try await authorize()
        #expect(response.status == 302)
        #expect(try code(from: response).count >= 40)
    }

    @Test func aCodeWorksOnceWithTheRightVerifierOnly() async throws {
        let code = try code(from: try await authorize())
        #expect(await exchange(code, verifier: String(repeating: "w", count: 43)).status == 400)
        // A failed attempt consumed it too: codes are single-use whatever happens.
        #expect(await exchange(code).status == 400)
        let second = try self.code(from: try await authorize())
        let good = await exchange(second)
        #expect(good.status == 200)
        #expect(await exchange(second).status == 400)
    }

    @Test func pkceS256IsRequiredAndTheRedirectMustBeLoopback() async throws {
        let plain = try await authorize(challenge: "short")
        #expect(plain.headers["Location"]?.contains("error=invalid_request") == true)
        let foreign = try await authorize(redirect: "https://evil.example.com/callback")
        #expect(foreign.status == 400 && foreign.headers["Location"] == nil)
        let remotes = [
            "http://evil.example.com/callback", "ftp://127.0.0.1/callback", "https://127.0.0.1.evil.example/cb",
            "https://127.0.0.1@evil.example/cb", "https://localhost.evil.example/cb",
        ]
        for remote in remotes {
            #expect(try await authorize(redirect: remote).status == 400, "\(remote)")
        }
        // A gateway tried behind a TLS proxy on this machine: https on a loopback host.
        let proxied = try await authorize(redirect: "https://localhost:9443/bff/callback")
        #expect(proxied.status == 302)
        #expect(proxied.headers["Location"]?.hasPrefix("https://localhost:9443/bff/callback?") == true)
    }

    @Test func aDenialRedirectsWithAccessDenied() async throws {
        let response = try await authorize(decision: "deny")
        #expect(response.headers["Location"]?.contains("error=access_denied") == true)
    }

    @Test(arguments: JWSAlgorithm.allCases)
    func idTokensVerifyAgainstTheJWKSAcrossARotation(_ algorithm: JWSAlgorithm) async throws {
        let first = await exchange(try code(from: try await authorize()))
        try await server.rotateIDTokenKey(to: algorithm)
        let second = await exchange(try code(from: try await authorize()))
        let jwks = await server.handle(HTTPRequest(method: "GET", path: "/oauth/jwks", headers: host))
        let object = try #require(try JSONSerialization.jsonObject(with: jwks.body) as? [String: Any])
        #expect((object["keys"] as? [Any])?.count == 2)
        let http = StaticHTTPClient(body: jwks.body)
        let verifier = IDTokenVerifier(
            jwksURI: try #require(EndpointURL(URL(string: "http://127.0.0.1:9999/oauth/jwks")!)),
            clients: { _ in http }, verifier: OpenSSLSignatureVerifier())
        let expected = IDTokenExpectations(issuer: "http://127.0.0.1:9999", clientID: Requests.clientID, nonce: "n1")
        for reply in [first, second] {
            let token = try #require((try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])?["id_token"] as? String)
            let claims = try await verifier.validate(token, expecting: expected, now: server.clock.now)
            #expect(claims.subject == "alice")
        }
    }
}

/// Answers every request with one JSON body.
struct StaticHTTPClient: HTTPClient {
    let body: Data
    func send(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
        HTTPResponse(status: 200, body: body)
    }
}
