import Data
import Domain
import Foundation
import OpenSSLCrypto
import TestSupport
import Testing

/// Fetching the key set (once more on an unknown key id, never more) and discovery (issuer equality,
/// the RFC 8414 fallback, endpoints that must be https).
@Suite struct KeySetAndDiscoveryTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let http = ScriptedHTTPClient()
    let expected = IDTokenExpectations(issuer: "https://id.example.com", clientID: "app", nonce: "n1")
    var clients: HTTPClientForOrigin { { [http] _ in http } }

    func verifier(refetchInterval: Duration = .seconds(60)) throws -> IDTokenVerifier {
        let jwks = try #require(EndpointURL(URL(string: "https://id.example.com/jwks")!))
        return IDTokenVerifier(
            jwksURI: jwks, clients: clients, verifier: OpenSSLSignatureVerifier(), refetchInterval: refetchInterval)
    }

    /// Tokens naming key ids the issuer never had, one after another (anyone may post them to a
    /// back-channel logout endpoint): one fetch for the first, then none within the interval; with no
    /// interval, one each.
    @Test(arguments: [(Duration.seconds(60), 2), (Duration.zero, 4)])
    func forgedKeyIdsFetchTheSetAtMostOncePerInterval(_ interval: Duration, _ fetches: Int) async throws {
        let issuer = try TestIssuer(keyID: "k1")
        http.reply("/jwks", status: 200, body: issuer.jwks)
        let verifier = try verifier(refetchInterval: interval)
        _ = try await verifier.validate(try issuer.token(issuer.claims(now: now)), expecting: expected, now: now)
        for id in ["f1", "f2", "f3"] {
            let stranger = try TestIssuer(keyID: id)
            await #expect(throws: IDTokenError.unknownKey) {
                try await verifier.validate(try stranger.token(stranger.claims(now: now)), expecting: expected, now: now)
            }
        }
        #expect(http.requests.count == fetches)
    }

    @Test func anUnknownKeyIdAfterARotationSucceedsAfterOneRefetch() async throws {
        let old = try TestIssuer(keyID: "old")
        let new = try TestIssuer(.es256, keyID: "new")
        http.reply("/jwks", status: 200, body: old.jwks)
        http.reply("/jwks", status: 200, body: TestIssuer.jwks([("old", old.key), ("new", new.key)]))
        let verifier = try verifier()
        _ = try await verifier.validate(try old.token(old.claims(now: now)), expecting: expected, now: now)
        #expect(http.requests.count == 1)
        let claims = try await verifier.validate(try new.token(new.claims(now: now)), expecting: expected, now: now)
        #expect(claims.subject == "u1")
        #expect(http.requests.count == 2)
        _ = try await verifier.validate(try new.token(new.claims(now: now)), expecting: expected, now: now)
        #expect(http.requests.count == 2)
    }

    @Test func aKeyIdStillUnknownAfterTheRefetchIsRefusedWithoutMoreFetches() async throws {
        let issuer = try TestIssuer(keyID: "k1")
        let stranger = try TestIssuer(keyID: "k9")
        http.reply("/jwks", status: 200, body: issuer.jwks)
        let verifier = try verifier()
        _ = try await verifier.validate(try issuer.token(issuer.claims(now: now)), expecting: expected, now: now)
        await #expect(throws: IDTokenError.unknownKey) {
            try await verifier.validate(try stranger.token(stranger.claims(now: now)), expecting: expected, now: now)
        }
        #expect(http.requests.count == 2)
    }

    @Test func aFirstFetchIsNotRepeatedForTheSameToken() async throws {
        let issuer = try TestIssuer(keyID: "k1")
        let stranger = try TestIssuer(keyID: "k9")
        http.reply("/jwks", status: 200, body: issuer.jwks)
        await #expect(throws: IDTokenError.unknownKey) {
            try await verifier().validate(try stranger.token(stranger.claims(now: now)), expecting: expected, now: now)
        }
        #expect(http.requests.count == 1)
    }

    @Test func keysOfOtherKindsInTheSetAreSkipped() async throws {
        let issuer = try TestIssuer(keyID: "k1")
        let set = TestIssuer.jwks([("k1", issuer.key)]).replacingOccurrences(
            of: #"{"keys":["#,
            with: #"{"keys":[{"kty":"oct","kid":"h","k":"c2VjcmV0"},{"kty":"OKP","crv":"Ed25519","x":"AA"},{"kty":"RSA","kid":"enc","use":"enc","n":"AQAB","e":"AQAB"},"#)
        http.reply("/jwks", status: 200, body: set)
        let claims = try await verifier().validate(try issuer.token(issuer.claims(now: now)), expecting: expected, now: now)
        #expect(claims.subject == "u1")
    }

    @Test func anUnavailableKeySetIsSaidSo() async throws {
        let issuer = try TestIssuer()
        http.reply("/jwks", status: 503)
        await #expect(throws: IDTokenError.keySetUnavailable("HTTP 503")) {
            try await verifier().validate(try issuer.token(issuer.claims(now: now)), expecting: expected, now: now)
        }
    }

    static let document = #"""
        {"issuer":"ISSUER","authorization_endpoint":"https://id.example.com/authorize",
         "token_endpoint":"https://id.example.com/token","jwks_uri":"https://keys.example.com/jwks",
         "revocation_endpoint":"https://id.example.com/revoke","code_challenge_methods_supported":["S256"],
         "authorization_response_iss_parameter_supported":true,"scopes_supported":["openid","profile"]}
        """#

    @Test func openIDDiscoveryGivesTheEndpoints() async throws {
        http.reply(
            "/.well-known/openid-configuration", status: 200,
            body: Self.document.replacingOccurrences(of: "ISSUER", with: "https://id.example.com"))
        let metadata = try await OpenIDDiscovery(clients: clients).metadata(issuer: URL(string: "https://id.example.com")!)
        #expect(metadata.issuer == "https://id.example.com")
        #expect(metadata.tokenEndpoint.path == "/token")
        #expect(metadata.jwksURI?.origin == URL(string: "https://keys.example.com"))
        #expect(metadata.codeChallengeMethods == ["S256"])
        #expect(metadata.sendsIssuerInAuthorizationResponse)
        #expect(metadata.deviceAuthorizationEndpoint == nil)
        #expect(metadata.scopesSupported == ["openid", "profile"])
        #expect(metadata.unlistedScopes(of: "openid profile offline_access") == ["offline_access"])
        #expect(metadata.unlistedScopes(of: "openid profile") == [])
        var unlisting = metadata
        unlisting.scopesSupported = nil
        #expect(unlisting.unlistedScopes(of: "openid offline_access") == [], "no list: nothing to say")
    }

    @Test func rfc8414IsTriedWhenThereIsNoOpenIDDocument() async throws {
        http.reply(
            "/.well-known/oauth-authorization-server/tenant/a", status: 200,
            body: Self.document.replacingOccurrences(of: "ISSUER", with: "https://id.example.com/tenant/a"))
        let metadata = try await OpenIDDiscovery(clients: clients).metadata(
            issuer: URL(string: "https://id.example.com/tenant/a")!)
        #expect(metadata.issuer == "https://id.example.com/tenant/a")
        #expect(http.requests.map(\.path) == [
            "/tenant/a/.well-known/openid-configuration", "/.well-known/oauth-authorization-server/tenant/a",
        ])
    }

    @Test(arguments: ["https://evil.example.com", "https://id.example.com/", "https://ID.example.com", "http://id.example.com"])
    func aDocumentNamingAnotherIssuerIsRefused(_ named: String) async {
        http.reply(
            "/.well-known/openid-configuration", status: 200,
            body: Self.document.replacingOccurrences(of: "ISSUER", with: named))
        await #expect(throws: AuthenticationError.invalidResponse(
            "the discovery document names another issuer than the one asked for")) {
            try await OpenIDDiscovery(clients: clients).metadata(issuer: URL(string: "https://id.example.com")!)
        }
    }

    @Test func plainHTTPEndpointsAreRefusedExceptOnLoopback() async throws {
        http.reply(
            "/.well-known/openid-configuration", status: 200,
            body: Self.document.replacingOccurrences(of: "ISSUER", with: "https://id.example.com")
                .replacingOccurrences(of: "https://id.example.com/token", with: "http://id.example.com/token"))
        await #expect(throws: AuthenticationError.invalidResponse("the discovery document's token_endpoint is not an https URL")) {
            try await OpenIDDiscovery(clients: clients).metadata(issuer: URL(string: "https://id.example.com")!)
        }
        await #expect(throws: AuthenticationError.self) {
            try await OpenIDDiscovery(clients: clients).metadata(issuer: URL(string: "http://id.example.com")!)
        }
        #expect(EndpointURL(URL(string: "http://127.0.0.1:8080/token?x=1")!)?.path == "/token?x=1")
        #expect(EndpointURL(URL(string: "https://user:pw@id.example.com/")!) == nil)
    }

    @Test func aFailingServerIsTemporaryAndNoDocumentIsARefusal() async {
        http.reply("/.well-known/openid-configuration", status: 502)
        await #expect(throws: AuthenticationError.temporarilyUnavailable("discovery answered HTTP 502")) {
            try await OpenIDDiscovery(clients: clients).metadata(issuer: URL(string: "https://id.example.com")!)
        }
        let other = ScriptedHTTPClient()
        await #expect(throws: AuthenticationError.self) {
            try await OpenIDDiscovery(clients: { _ in other }).metadata(issuer: URL(string: "https://id.example.com")!)
        }
    }
}
