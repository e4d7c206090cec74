import BrowserRedirect
import Data
public import Domain
public import Foundation
import OpenSSLCrypto

/// The authorization code flow with PKCE through the system browser and a loopback redirect
/// (RFC 8252): discovery, a one-shot listener on 127.0.0.1, the browser opened on the authorization
/// URL (which is also announced, for a user on another machine), a bounded wait for the redirect,
/// its checks, the code exchange, the ID token's checks, and only then the store opened and the
/// session signed in through ``SignIn``. Every failure leaves the store as it was.
public struct CodeFlowSignIn: Sendable {
    /// The issuer to discover.
    public var issuer: URL
    /// This client's id at the issuer.
    public var clientID: String
    /// The scope asked for; `openid` brings an ID token and a nonce.
    public var scope: String
    /// Seconds to wait for the browser.
    public var timeout: Int
    /// Where `BROWSER` and `PATH` are read.
    public var environment: [String: String]
    /// The store the session goes into.
    public var store: StoreConfiguration
    /// Whose session it becomes (the default account unless told otherwise).
    public var account: AccountName
    /// A client secret, for servers that require one even from a native app.
    public var clientSecret: SecretBytes?
    /// The clock the ID token is checked against.
    public var now: @Sendable () -> Date

    /// Creates the flow.
    public init(
        issuer: URL, clientID: String, scope: String = "openid profile", timeout: Int = 300,
        environment: [String: String], store: StoreConfiguration, account: AccountName = .default, clientSecret: SecretBytes? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.clientSecret = clientSecret
        self.issuer = issuer
        self.clientID = clientID
        self.scope = scope
        self.timeout = timeout
        self.environment = environment
        self.store = store
        self.account = account
        self.now = now
    }

    /// Signs in; `announce` receives the lines for standard error (the URL to open, what happens).
    /// - Returns: the stored session and the app over its store.
    /// - Throws: ``SignInFailure``.
    public func run(announce: @Sendable (String) -> Void) async throws(SignInFailure) -> (Session, AppContainer) {
        let clients: HTTPClientForOrigin = { AppContainer.remoteHTTPClient($0) }
        let metadata: ProviderMetadata
        let listener: LoopbackRedirectListener
        do throws(AuthenticationError) {
            metadata = try await OpenIDDiscovery(clients: clients).metadata(issuer: issuer)
            do {
                listener = try LoopbackRedirectListener()
            } catch {
                throw .unsupported(error.description)
            }
        } catch {
            // Ctrl-C ends discovery with an error of its own: it is a cancellation.
            throw Task.isCancelled ? .cancelled : .auth(error)
        }
        let outcome: Result<(Session, AppContainer), SignInFailure>
        do throws(SignInFailure) {
            outcome = .success(try await signIn(metadata, through: listener, clients: clients, announce: announce))
        } catch {
            outcome = .failure(error)
        }
        // Only once the browser's page is written: the process may end right after.
        await listener.close()
        return try outcome.get()
    }

    /// The sign-in past discovery, through `listener`.
    private func signIn(
        _ metadata: ProviderMetadata, through listener: LoopbackRedirectListener, clients: @escaping HTTPClientForOrigin,
        announce: @Sendable (String) -> Void
    ) async throws(SignInFailure) -> (Session, AppContainer) {
        let grant: AuthorizationGrant
        let gateway: OpenIDAuthenticationGateway
        // The browser's request, answered once the sign-in has ended: "complete" only after the code was
        // exchanged, the ID token checked and the session stored; any failure on the way answers it
        // with the failure page.
        var redirect: HeldRedirect?
        defer {
            redirect?.answer("The sign-in did not complete. The terminal says why; you may close this window.")
        }
        do throws(AuthenticationError) {
            let request = try AuthorizationRequest(
                metadata: metadata, clientID: clientID, redirectURI: listener.redirectURI, scope: scope,
                crypto: OpenSSLSignInCrypto())
            announce("Open this URL in a browser to sign in (waiting up to \(timeout) s):")
            announce(request.url.absoluteString)
            if let program = BrowserOpener(environment: environment).open(request.url) {
                announce("(opened with \(program))")
            }
            let issuerText = metadata.issuer
            let sendsIss = metadata.sendsIssuerInAuthorizationResponse
            do {
                redirect = try await listener.receiveHeld(timeout: timeout)
            } catch {
                throw .unsupported(error.description)
            }
            let code = try AuthorizationRedirect(query: redirect?.query ?? "").code(
                for: request, issuer: issuerText, issuerSendsIss: sendsIss)
            grant = request.grant(code: code)
            gateway = OpenIDAuthenticationGateway(
                metadata: metadata, clientID: clientID, clientSecret: clientSecret, clients: clients,
                signatures: OpenSSLSignatureVerifier(),
                clockSkew: AuthenticationPolicy().clockSkew, now: now)
        } catch {
            // Ctrl-C ends the wait (or the exchange) with an error of its own: it is a cancellation.
            throw Task.isCancelled ? .cancelled : .auth(error)
        }
        // The code is exchanged before the store is opened or created, so a failed exchange leaves no store.
        let session: Session
        do throws(AuthenticationError) {
            session = try await gateway.signIn(.grant(grant))
        } catch {
            // Ctrl-C ends the wait (or the exchange) with an error of its own: it is a cancellation.
            throw Task.isCancelled ? .cancelled : .auth(error)
        }
        let signedIn = try await AppContainer.signIn(
            issued: session, issuer: issuer, clientID: clientID, store: store, account: account, now: now)
        redirect?.answer("Sign-in complete. You may close this window and return to the terminal.")
        return signedIn
    }
}
