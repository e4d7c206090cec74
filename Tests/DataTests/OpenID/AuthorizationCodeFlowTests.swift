import Data
import Domain
import Foundation
import OpenSSLCrypto
import TestSupport
import Testing

/// The code flow's pieces: the request (PKCE S256, state, nonce), the redirect's checks, and the code
/// exchange with its ID token.
@Suite struct AuthorizationCodeFlowTests {
    let clock = TestClock()
    let http = ScriptedHTTPClient()
    let issuer = "https://id.example.com"

    func metadata(iss: Bool = true, methods: [String] = ["S256"]) async throws -> ProviderMetadata {
        http.reply("/.well-known/openid-configuration", status: 200, body: #"""
            {"issuer":"https://id.example.com","authorization_endpoint":"https://id.example.com/authorize",
             "token_endpoint":"https://id.example.com/token","jwks_uri":"https://id.example.com/jwks",
             "revocation_endpoint":"https://id.example.com/revoke",
             "code_challenge_methods_supported":\#(methods),"authorization_response_iss_parameter_supported":\#(iss)}
            """#.replacingOccurrences(of: "[S256]", with: #"["S256"]"#).replacingOccurrences(of: "[plain]", with: #"["plain"]"#))
        let client = http
        return try await OpenIDDiscovery(clients: { _ in client }).metadata(issuer: URL(string: "https://id.example.com")!)
    }

    func request(_ metadata: ProviderMetadata, scope: String = "openid profile") throws -> AuthorizationRequest {
        try AuthorizationRequest(
            metadata: metadata, clientID: "app", redirectURI: "http://127.0.0.1:5555/callback", scope: scope,
            crypto: OpenSSLSignInCrypto())
    }

    func query(_ url: URL) -> [String: String] {
        Dictionary(uniqueKeysWithValues: (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [])
            .map { ($0.name, $0.value ?? "") })
    }

    @Test func theRequestCarriesS256StateAndNonceButNeverTheVerifier() async throws {
        let request = try request(await metadata())
        let fields = query(request.url)
        #expect(request.url.absoluteString.hasPrefix("https://id.example.com/authorize?"))
        #expect(fields["response_type"] == "code" && fields["client_id"] == "app")
        #expect(fields["redirect_uri"] == "http://127.0.0.1:5555/callback")
        #expect(fields["code_challenge_method"] == "S256")
        let verifier = try #require(request.verifier.revealedString())
        #expect(verifier.count == 43)
        let digest = try OpenSSLRandom.sha256(Data(verifier.utf8)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(fields["code_challenge"] == digest)
        #expect(fields["state"] == request.state.revealedString() && fields["nonce"] == request.nonce?.revealedString())
        #expect(!request.url.absoluteString.contains(verifier))
        let again = try self.request(await metadata())
        #expect(again.state != request.state && again.verifier != request.verifier)
        #expect(try self.request(await metadata(), scope: "api").nonce == nil)
    }

    @Test func anIssuerWithoutS256IsRefused() async throws {
        let metadata = try await metadata(methods: ["plain"])
        #expect(throws: AuthenticationError.self) { try request(metadata) }
    }

    @Test func theRedirectIsChecked() async throws {
        let metadata = try await metadata()
        let request = try request(metadata)
        let state = try #require(request.state.revealedString())
        func code(_ query: String, sendsIss: Bool = true) throws(AuthenticationError) -> SecretBytes {
            try AuthorizationRedirect(query: query).code(for: request, issuer: issuer, issuerSendsIss: sendsIss)
        }
        let iss = "iss=https%3A%2F%2Fid.example.com"
        #expect(try code("code=c1&state=\(state)&\(iss)").revealedString() == "c1")
        #expect(try code("code=c1&state=\(state)", sendsIss: false).revealedString() == "c1")
        let missingIss = AuthenticationError.invalidResponse("the redirect has no `iss`, which the issuer says it always sends")
        let wrongIss = AuthenticationError.invalidResponse("the redirect's `iss` is not the issuer signed in with")
        let wrongState = AuthenticationError.invalidResponse(
            "the redirect's `state` does not match the request (a forged or stale redirect)")
        #expect(throws: missingIss) { try code("code=c1&state=\(state)") }
        #expect(throws: wrongIss) { try code("code=c1&state=\(state)&iss=https%3A%2F%2Fevil.example.com") }
        #expect(throws: wrongState) { try code("code=c1&state=\(state)x&\(iss)") }
        #expect(throws: wrongState) { try code("code=c1&\(iss)") }
        #expect(throws: AuthenticationError.invalidResponse("the redirect repeats a parameter")) {
            try code("code=c1&code=c2&state=\(state)&\(iss)")
        }
        #expect(throws: AuthenticationError.invalidResponse("the redirect has no code")) { try code("state=\(state)&\(iss)") }
        #expect(throws: AuthenticationError.invalidCredentials("the sign-in was refused in the browser")) {
            try code("error=access_denied&state=\(state)&\(iss)")
        }
        // An error with a wrong state is a forged redirect, not a refusal.
        #expect(throws: wrongState) { try code("error=access_denied&state=zzz&\(iss)") }
        #expect(throws: AuthenticationError.rejected(status: 400, reason: "the authorization server answered server_error")) {
            try code("error=server_error&state=\(state)&\(iss)")
        }
    }

    @Test func theCodeIsExchangedWithItsVerifierAndTheIDTokenChecked() async throws {
        let metadata = try await metadata()
        let request = try request(metadata)
        let signer = try TestIssuer()
        http.reply("/jwks", status: 200, body: signer.jwks)
        let nonce = try #require(request.nonce?.revealedString())
        let idToken = try signer.token(
            signer.claims(now: clock.date) { $0["nonce"] = nonce; $0["aud"] = "app"; $0["sid"] = "idp-session" })
        http.reply("/token", status: 200, body: #"{"access_token":"at1","token_type":"Bearer","expires_in":300,"refresh_token":"rt1","id_token":"\#(idToken)"}"#)
        let client = http
        let gateway = OpenIDAuthenticationGateway(
            metadata: metadata, clientID: "app", clients: { _ in client }, signatures: OpenSSLSignatureVerifier(), now: clock.now)
        let session = try await gateway.signIn(.grant(request.grant(code: SecretBytes(utf8: "c1"))))
        #expect(session.user == User(id: "u1", name: "Alice") && session.method == .authorizationCode)
        // The verified ID token is kept, with the issuer's session id, for a later sign-out at the issuer.
        #expect(session.identity?.idToken == SecretBytes(utf8: idToken) && session.identity?.sessionID == "idp-session")
        let form = FormBodyProbe.fields(try #require(http.requests.first { $0.path == "/token" }).body)
        #expect(form["grant_type"] == "authorization_code" && form["code"] == "c1" && form["client_id"] == "app")
        #expect(form["code_verifier"] == request.verifier.revealedString())
        #expect(form["redirect_uri"] == "http://127.0.0.1:5555/callback")
    }

    @Test(arguments: ["wrong-nonce", "missing"])
    func anIDTokenWithAnotherNonceOrNoneAtAllIsRefused(_ variant: String) async throws {
        let metadata = try await metadata()
        let request = try request(metadata)
        let signer = try TestIssuer()
        http.reply("/jwks", status: 200, body: signer.jwks)
        let idToken = try signer.token(signer.claims(now: clock.date) { $0["nonce"] = "someone-else"; $0["aud"] = "app" })
        let field = variant == "missing" ? "" : #","id_token":"\#(idToken)""#
        http.reply("/token", status: 200, body: #"{"access_token":"at1","token_type":"Bearer","refresh_token":"rt1"\#(field)}"#)
        let client = http
        let gateway = OpenIDAuthenticationGateway(
            metadata: metadata, clientID: "app", clients: { _ in client }, signatures: OpenSSLSignatureVerifier(), now: clock.now)
        await #expect(throws: AuthenticationError.self) {
            try await gateway.signIn(.grant(request.grant(code: SecretBytes(utf8: "c1"))))
        }
    }
}
