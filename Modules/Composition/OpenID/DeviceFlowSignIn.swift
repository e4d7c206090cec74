import Data
public import Domain
public import Foundation
import OpenSSLCrypto

/// The device authorization grant (RFC 8628) for machines without a browser: discovery, a device code,
/// the verification URI and user code announced, polling at the server's pace, and only on approval
/// the store opened and the session signed in through ``SignIn``. Every failure leaves the store as it was.
public struct DeviceFlowSignIn: Sendable {
    /// The issuer to discover.
    public var issuer: URL
    /// This client's id at the issuer.
    public var clientID: String
    /// The scope asked for.
    public var scope: String
    /// The store the session goes into.
    public var store: StoreConfiguration
    /// Whose session it becomes (the default account unless told otherwise).
    public var account: AccountName
    /// A client secret, for servers that require one.
    public var clientSecret: SecretBytes?
    /// The clock.
    public var now: @Sendable () -> Date

    /// Creates the flow.
    public init(
        issuer: URL, clientID: String, scope: String = "openid profile", store: StoreConfiguration,
        account: AccountName = .default, clientSecret: SecretBytes? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.clientSecret = clientSecret
        self.issuer = issuer
        self.clientID = clientID
        self.scope = scope
        self.store = store
        self.account = account
        self.now = now
    }

    /// Signs in; `announce` receives the lines for standard error (where to go, the user code).
    /// - Returns: the stored session and the app over its store.
    /// - Throws: ``SignInFailure``.
    public func run(announce: @Sendable (String) -> Void) async throws(SignInFailure) -> (Session, AppContainer) {
        let clients: HTTPClientForOrigin = { AppContainer.remoteHTTPClient($0) }
        let session: Session
        do throws(AuthenticationError) {
            let metadata = try await OpenIDDiscovery(clients: clients).metadata(issuer: issuer)
            let gateway = OpenIDAuthenticationGateway(
                metadata: metadata, clientID: clientID, clientSecret: clientSecret, clients: clients,
                signatures: OpenSSLSignatureVerifier(),
                clockSkew: AuthenticationPolicy().clockSkew, now: now)
            let flow = DeviceAuthorizationFlow(
                metadata: metadata, clientID: clientID, clients: clients, gateway: gateway,
                sleep: { seconds in try await Task.sleep(for: .seconds(seconds)) }, now: now)
            let authorization = try await flow.start(scope: scope)
            announce("To sign in, open \(authorization.verificationURI) and enter the code \(authorization.userCode)")
            if let complete = authorization.verificationURIComplete { announce("(or open \(complete))") }
            announce("Waiting for approval (until the code expires)…")
            session = try await flow.waitForApproval(authorization)
        } catch {
            // Ctrl-C ends the wait (or the exchange) with an error of its own: it is a cancellation.
            throw Task.isCancelled ? .cancelled : .auth(error)
        }
        return try await AppContainer.signIn(
            issued: session, issuer: issuer, clientID: clientID, store: store, account: account, now: now)
    }
}
