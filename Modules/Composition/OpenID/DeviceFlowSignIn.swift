import Data
public import Domain
public import Foundation
import Infrastructure
import OpenSSLCrypto

/// The device authorization grant (RFC 8628) for machines without a browser: discovery, a device code,
/// the verification URI and user code announced, polling at the server's pace, and only on approval
/// the store opened and the session saved. Every failure leaves the store as it was.
public struct DeviceFlowSignIn: Sendable {
    /// The issuer to discover.
    public var issuer: URL
    /// This client's id at the issuer.
    public var clientID: String
    /// The scope asked for.
    public var scope: String
    /// The store the session goes into.
    public var store: StoreConfiguration
    /// A client secret, for servers that require one.
    public var clientSecret: SecretBytes?
    /// The clock.
    public var now: @Sendable () -> Date

    /// Creates the flow.
    public init(
        issuer: URL, clientID: String, scope: String = "openid profile", store: StoreConfiguration,
        clientSecret: SecretBytes? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.clientSecret = clientSecret
        self.issuer = issuer
        self.clientID = clientID
        self.scope = scope
        self.store = store
        self.now = now
    }

    /// Signs in; `announce` receives the lines for standard error (where to go, the user code).
    /// - Returns: the stored session and the store it is in.
    /// - Throws: ``SignInFailure``.
    public func run(announce: @Sendable (String) -> Void) async throws(SignInFailure) -> (Session, KeychainHandle) {
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
            throw .auth(error)
        }
        let keychain: KeychainHandle
        do throws(SecureStoreError) {
            keychain = try store.open()
        } catch {
            throw .store(error)
        }
        let repository = SecureStoreSessionRepository(store: keychain.items, claimantIsGone: LocalProcessIdentity.isGone)
        do throws(AuthenticationError) {
            try repository.replace(with: session)
        } catch {
            throw .auth(error)
        }
        return (session, keychain)
    }
}
