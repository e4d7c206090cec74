import BrowserRedirect
public import Composition
import Data
public import Domain
import DevelopmentServers
import Foundation
import OpenSSLCrypto

/// What the demo shows of a sign-in through the browser or the device grant.
public struct DemoSignIn: Sendable {
    /// The stored session.
    public let session: Session
    /// What happened, step by step, one line each, for the narration (no token or code in any).
    public let steps: [String]
}

/// The demo's sign-ins the way RFC 9700 asks, on the embedded server: discovery, then the authorization
/// code with PKCE through a real loopback listener on 127.0.0.1, where a scripted browser (standing in
/// for the user) fills in the server's login form and follows its redirect; or the device grant, where
/// the "other device" approves the user code on the server's verification page while the app polls.
/// The ID token is verified (RS256 against the server's JWKS) as for a remote issuer. Only the server's
/// side goes through the in-process transport; the loopback redirect is real HTTP.
extension DemoEnvironment {
    /// The issuer the embedded server names when a request carries no `Host`.
    static let issuer = "http://127.0.0.1"

    /// Signs in with the authorization code and PKCE, ending in `app`'s ``SignIn`` like every sign-in.
    /// - Throws: ``AuthenticationError`` from any step (nothing is stored then).
    public func signInThroughBrowser(into app: AppContainer) async throws(AuthenticationError) -> DemoSignIn {
        let (metadata, gateway) = try await discover()
        var steps = ["discovery: \(metadata.issuer)/.well-known/openid-configuration (issuer checked)"]
        let listener: LoopbackRedirectListener
        do {
            listener = try LoopbackRedirectListener()
        } catch {
            throw .unsupported(error.description)
        }
        let request: AuthorizationRequest
        do throws(AuthenticationError) {
            request = try AuthorizationRequest(
                metadata: metadata, clientID: AppConfiguration.defaultClientID, redirectURI: listener.redirectURI,
                scope: "openid profile", crypto: OpenSSLSignInCrypto())
        } catch {
            await listener.close()
            throw error
        }
        steps.append("listening on \(listener.redirectURI) for the redirect; PKCE S256, a fresh state and nonce")
        let transport = EmbeddedAuthServerTransport(server: server)
        // The scripted browser runs beside the app's wait, as a user's browser would.
        let browser = Task { () -> Bool in
            await ScriptedDemoBrowser(transport: transport).approve(request.url, as: Self.credentials)
        }
        let query: String
        do {
            query = try await listener.receive(timeout: 30) { _ in "Sign-in complete." }
        } catch {
            browser.cancel()
            await listener.close()
            throw .unsupported(error.description)
        }
        // The page is answered already: closing waits only for it to be written.
        await listener.close()
        guard await browser.value else { throw .invalidResponse("the scripted browser was not redirected") }
        steps.append("the scripted browser signed in as \(Self.credentials.username) on the server's form and was redirected back")
        let code = try AuthorizationRedirect(query: query).code(
            for: request, issuer: metadata.issuer, issuerSendsIss: metadata.sendsIssuerInAuthorizationResponse)
        steps.append("state (constant time) and iss (RFC 9207) checked; the code exchanged with the PKCE verifier")
        let issued = try await gateway.signIn(.grant(request.grant(code: code)))
        steps.append("the ID token's RS256 signature (JWKS), iss, aud, exp, iat and nonce verified")
        return DemoSignIn(session: try await app.signIn(issued: issued), steps: steps)
    }

    /// Signs in with the device grant: the user code is approved on the server's verification page at
    /// the app's first wait, and the app's polling then gets the tokens. The waits move the shared clock.
    /// - Throws: ``AuthenticationError`` from any step (nothing is stored then).
    public func signInWithDevice(into app: AppContainer) async throws(AuthenticationError) -> DemoSignIn {
        let (metadata, gateway) = try await discover()
        let transport = EmbeddedAuthServerTransport(server: server)
        let clock = clock
        let approval = DemoDeviceApproval(transport: transport)
        let flow = DeviceAuthorizationFlow(
            metadata: metadata, clientID: AppConfiguration.defaultClientID, clients: { _ in transport }, gateway: gateway,
            sleep: { seconds in
                clock.advance(by: seconds)
                await approval.approveOnce(as: Self.credentials)
            }, now: { clock.now })
        let authorization = try await flow.start(scope: "openid profile")
        await approval.setUserCode(authorization.userCode)
        var steps = ["the app asked for a device code and shows: open \(authorization.verificationURI), enter \(authorization.userCode)"]
        let issued = try await flow.waitForApproval(authorization)
        steps.append("on another device, \(Self.credentials.username) approved the code; the app's next poll got the tokens")
        steps.append("the ID token verified as in the browser flow")
        return DemoSignIn(session: try await app.signIn(issued: issued), steps: steps)
    }

    private func discover() async throws(AuthenticationError) -> (ProviderMetadata, OpenIDAuthenticationGateway) {
        let transport = EmbeddedAuthServerTransport(server: server)
        let clients: HTTPClientForOrigin = { _ in transport }
        let metadata = try await OpenIDDiscovery(clients: clients).metadata(issuer: URL(string: Self.issuer)!)
        let clock = clock
        let gateway = OpenIDAuthenticationGateway(
            metadata: metadata, clientID: AppConfiguration.defaultClientID, clients: clients,
            signatures: OpenSSLSignatureVerifier(), clockSkew: AuthenticationPolicy().clockSkew, now: { clock.now })
        return (metadata, gateway)
    }
}
