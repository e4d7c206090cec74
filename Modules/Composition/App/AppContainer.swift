public import Data
public import Domain
package import Foundation
import URLSessionHTTP
import CurlHTTP

/// The app, wired: every use case built once over one store handle and one HTTP client, so that all
/// authorized calls in this process share one refresher. Every call it offers can be awaited from any
/// task: the store's waits run on the store's own threads (``StoreThreads``), never on the caller's.
public struct AppContainer: Sendable {
    /// Signs a user in: every way to sign in ends here.
    public let signIn: SignIn
    /// Decides at launch whether the user is signed in.
    public let validateAuthentication: ValidateAuthentication
    /// Refreshes tokens, once per generation.
    public let refreshSession: RefreshSession
    /// Makes calls that need the access token.
    public let performAuthorizedCall: PerformAuthorizedCall
    /// Signs the user out.
    public let signOut: SignOut
    /// `GET /api/me`.
    public let profile: ProfileAPI
    /// The store handle, for the keychain's own operations.
    public let keychain: KeychainHandle
    /// Where the session is kept (the demo's and the tests' look at what is stored).
    package let repository: any SessionRepository
    /// The gateway, for the demo's replay of a stolen refresh token.
    package let gateway: any AuthenticationGateway

    /// Seconds one request to the auth server may take.
    static let requestTimeout: Double = 15

    /// Builds the app from `configuration`, opening (or creating) the store.
    /// - Throws: ``SecureStoreError`` when the store cannot be opened.
    public init(_ configuration: AppConfiguration) async throws(SecureStoreError) {
        var store = configuration.store
        if let onWait = configuration.onWait, store.options.onLongWait == nil { store.options.onLongWait = { onWait(.storeLock) } }
        let keychain = try await store.open()
        let stored = await Self.read(configuration.account, in: keychain)
        self = await Self(configuration, keychain: keychain, stored: try? stored.get())
    }

    /// Builds the app for `account`'s session on a store already open, reading that session once:
    /// `configure` makes the configuration from what was read (the server a session remembers, say),
    /// and the app reuses the read.
    /// - Throws: what `configure` throws.
    public static func forStoredSession<Failure: Error>(
        of account: AccountName, in keychain: KeychainHandle,
        configure: (_ stored: Result<Session?, AuthenticationError>) throws(Failure) -> AppConfiguration
    ) async throws(Failure) -> AppContainer {
        let stored = await read(account, in: keychain)
        var configuration = try configure(stored)
        configuration.account = account
        return await AppContainer(configuration, keychain: keychain, stored: try? stored.get())
    }

    /// The session `account` has stored in `keychain`, as read.
    private static func read(_ account: AccountName, in keychain: KeychainHandle) async
        -> Result<Session?, AuthenticationError>
    {
        let repository = SecureStoreSessionRepository(store: keychain.items, account: account)
        do throws(AuthenticationError) {
            return .success(try await repository.load())
        } catch {
            return .failure(error)
        }
    }

    /// The HTTP client for a remote origin (the server, or an issuer's endpoints).
    package static func remoteHTTPClient(_ url: URL) -> any HTTPClient {
        #if canImport(FoundationNetworking)
            // On Linux URLSession spins a core while it waits for a reply; curl's easy interface idles.
            return CurlHTTPClient(baseURL: url, timeout: requestTimeout)
        #else
            return URLSessionHTTPClient(baseURL: url, timeout: requestTimeout)
        #endif
    }

    /// Builds the app over an open store; `stored` is the account's session as already read (for the
    /// routes of a session that remembers its issuer).
    package init(_ configuration: AppConfiguration, keychain: KeychainHandle, stored: Session?) async {
        let base: any HTTPClient =
            switch configuration.server {
            case .remote(let url): Self.remoteHTTPClient(url)
            case .inProcess(let transport): transport
            }
        let http: any HTTPClient = configuration.onWait.map { PatientHTTPClient(base, onWait: $0) } ?? base
        // A session signed in through discovery is refreshed, revoked and asked about at its issuer's
        // own endpoints, whatever the configured server says; in process, every origin is the one transport.
        let clients: HTTPClientForOrigin =
            if case .inProcess = configuration.server { { _ in http } } else { { Self.remoteHTTPClient($0) } }
        // Taking the instance lock of a PostgreSQL store waits on the server: on the store's threads.
        let claimants = await keychain.refreshClaimants
        let ownerID = await StoreThreads.run { claimants.ownerID() }
        let repository = SecureStoreSessionRepository(
            store: keychain.items, account: configuration.account, claimantIsGone: claimants.isGone)
        let now = configuration.now
        let contractGateway = Self.gateway(configuration.contract, http: http, clientID: configuration.clientID, now: now)
        let issuerRoute = IssuerRoute(stored: stored, now: now, clients: clients)
        let gateway = issuerRoute?.gateway ?? contractGateway
        let refresher = RefreshSession(
            gateway: gateway, repository: repository, policy: Self.safePolicy(configuration.policy), ownerID: ownerID,
            now: now, onWait: configuration.onWait, stormGuard: configuration.stormGuard,
            stormKey: keychain.storePath + "\u{0}" + configuration.account.value)
        self.keychain = keychain
        self.repository = repository
        self.gateway = gateway
        signIn = SignIn(
            gateway: contractGateway, repository: repository, origin: configuration.origin,
            gatewayForReplaced: { replaced in Self.revocationGateway(for: replaced, clients: clients, now: now) })
        validateAuthentication = ValidateAuthentication(
            repository: repository, policy: configuration.policy, now: now)
        refreshSession = refresher
        performAuthorizedCall = PerformAuthorizedCall(
            repository: repository, refresher: refresher, policy: configuration.policy, now: now)
        signOut = SignOut(gateway: gateway, repository: repository)
        profile = issuerRoute?.profile ?? ProfileAPI(http: http)
    }

    /// The gateway of `contract` at the server `http` reaches, as client `clientID`.
    private static func gateway(
        _ contract: ServerContract, http: any HTTPClient, clientID: String, now: @escaping @Sendable () -> Date
    ) -> any AuthenticationGateway {
        switch contract {
        case .oauth: OAuthAuthenticationGateway(http: http, clientID: clientID, now: now)
        case .header: HeaderAuthenticationGateway(http: http, clientID: clientID, now: now)
        }
    }

    /// The gateway that can revoke `session`'s refresh token where it was issued: its issuer's remembered
    /// endpoints, or the server, contract and client it was signed in with; `nil` when neither is known.
    static func revocationGateway(
        for session: Session, clients: @escaping HTTPClientForOrigin, now: @escaping @Sendable () -> Date
    ) -> (any AuthenticationGateway)? {
        if let route = IssuerRoute(stored: session, now: now, clients: clients) { return route.gateway }
        guard let origin = session.origin, let url = URL(string: origin.server),
            ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            let contract = ServerContract(rawValue: origin.contract)
        else { return nil }
        return gateway(contract, http: clients(url), clientID: origin.clientID, now: now)
    }

    /// The signed-in user, through an authorized call to `/api/me`.
    public func currentUser() async throws(AuthenticationError) -> User {
        let profile = profile
        return try await performAuthorizedCall { token async throws(AuthenticationError) in try await profile.me(token) }
    }

    /// Forces a refresh of the stored session now.
    /// - Throws: ``AuthenticationError/notSignedIn`` and what ``RefreshSession/refresh(replacing:)`` throws.
    public func refreshNow() async throws(AuthenticationError) -> Session {
        guard let session = try await repository.load() else { throw .notSignedIn }
        return try await refreshSession.refresh(replacing: session)
    }

    /// `policy` with a refresh lease long enough to outlast one refresh: the request (at most
    /// ``requestTimeout``), a wait for the store's lock, and the write. A shorter lease could run out
    /// while the server answers, and another process would then present the same refresh token.
    static func safePolicy(_ policy: AuthenticationPolicy) -> AuthenticationPolicy {
        var safe = policy
        safe.refreshLease = max(policy.refreshLease, 2 * requestTimeout + 15)
        return safe
    }
}
