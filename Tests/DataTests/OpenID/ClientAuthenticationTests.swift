import Data
import Domain
import Foundation
import OpenSSLCrypto
import TestSupport
import Testing

/// A client given a secret authenticates with HTTP Basic unless the issuer lists only
/// `client_secret_post`; the choice and the secret serve refresh and revocation later; a public client
/// sends its id alone.
@Suite struct ClientAuthenticationTests {
    let clock = TestClock()
    let http = ScriptedHTTPClient()

    func gateway(
        methods: String?, secret: String?, remembered: ClientAuthentication.Method? = nil
    ) async throws
        -> OpenIDAuthenticationGateway
    {
        let listed = methods.map { #","token_endpoint_auth_methods_supported":\#($0)"# } ?? ""
        http.reply(
            "/.well-known/openid-configuration", status: 200,
            body: #"""
                {"issuer":"https://id.example.com","authorization_endpoint":"https://id.example.com/authorize",
                 "token_endpoint":"https://id.example.com/token","revocation_endpoint":"https://id.example.com/revoke"\#(listed)}
                """#)
        let client = http
        let metadata = try await OpenIDDiscovery(clients: { _ in client }).metadata(
            issuer: URL(string: "https://id.example.com")!)
        return OpenIDAuthenticationGateway(
            metadata: metadata, clientID: "app:1", clientSecret: secret.map { SecretBytes(utf8: $0) },
            clientAuthMethod: remembered, clients: { _ in client }, signatures: OpenSSLSignatureVerifier(),
            now: clock.now)
    }

    func refreshAndRevoke(_ gateway: OpenIDAuthenticationGateway) async throws -> (HTTPRequest, HTTPRequest) {
        http.reply(
            "/token", status: 200,
            body: #"{"access_token":"at2","token_type":"Bearer","expires_in":300,"refresh_token":"rt2"}"#)
        http.reply("/revoke", status: 200, body: "")
        let session = Session(
            accessToken: try AccessToken(
                value: SecretBytes(utf8: "at1"), issuedAt: clock.date, expiresAt: clock.date + 300),
            refreshToken: try RefreshToken(value: SecretBytes(utf8: "rt1"), expiresAt: nil), user: nil,
            method: .authorizationCode)
        _ = try await gateway.refresh(session)
        try await gateway.revoke(session.refreshToken)
        return (
            try #require(http.requests.first { $0.path == "/token" }),
            try #require(http.requests.first { $0.path == "/revoke" })
        )
    }

    @Test(arguments: [nil, #"["client_secret_basic","client_secret_post"]"#, #"["private_key_jwt"]"#])
    func aSecretGoesInHTTPBasicByDefault(_ methods: String?) async throws {
        let (token, revoke) = try await refreshAndRevoke(try await gateway(methods: methods, secret: "s3:cr&t"))
        for request in [token, revoke] {
            // RFC 6749 §2.3.1: id and secret form-encoded, then Basic.
            let expected = "Basic " + Data("app%3A1:s3%3Acr%26t".utf8).base64EncodedString()
            #expect(request.headers["Authorization"] == expected)
            let form = FormBodyProbe.fields(request.body)
            #expect(form["client_secret"] == nil && form["client_id"] == nil)
        }
        #expect(FormBodyProbe.fields(token.body)["grant_type"] == "refresh_token")
    }

    @Test func aSecretGoesInTheFormWhenTheIssuerListsOnlyPost() async throws {
        let (token, revoke) = try await refreshAndRevoke(
            try await gateway(methods: #"["client_secret_post"]"#, secret: "s3"))
        for request in [token, revoke] {
            #expect(request.headers["Authorization"] == nil)
            let form = FormBodyProbe.fields(request.body)
            #expect(form["client_id"] == "app:1" && form["client_secret"] == "s3")
        }
    }

    @Test func aRememberedMethodWinsOverTheDefault() async throws {
        let (token, _) = try await refreshAndRevoke(try await gateway(methods: nil, secret: "s3", remembered: .post))
        #expect(token.headers["Authorization"] == nil && FormBodyProbe.fields(token.body)["client_secret"] == "s3")
    }

    @Test func aPublicClientSendsItsIDAlone() async throws {
        let (token, revoke) = try await refreshAndRevoke(try await gateway(methods: nil, secret: nil))
        for request in [token, revoke] {
            #expect(request.headers["Authorization"] == nil)
            let form = FormBodyProbe.fields(request.body)
            #expect(form["client_id"] == "app:1" && form["client_secret"] == nil)
        }
    }

    @Test func theSessionRemembersTheSecretAndHowItIsSent() throws {
        let metadata = try #require(
            ProviderMetadata(
                remembered: SessionIssuer(
                    issuer: "https://id.example.com", clientID: "app", tokenEndpoint: "https://id.example.com/token",
                    revocationEndpoint: nil, userinfoEndpoint: nil)))
        let issuer = metadata.sessionIssuer(
            client: ClientAuthentication(
                clientID: "app", secret: SecretBytes(utf8: "s3"), supported: ["client_secret_post"]))
        #expect(issuer.clientSecret == SecretBytes(utf8: "s3") && issuer.clientAuthMethod == "client_secret_post")
        let publicClient = metadata.sessionIssuer(client: ClientAuthentication(clientID: "app", secret: nil))
        #expect(publicClient.clientSecret == nil && publicClient.clientAuthMethod == nil)
    }
}
