public import Data
public import Domain
import Foundation
import URLSessionHTTP
import CurlHTTP
import DevelopmentServers
import Infrastructure
import Locking

/// The app, wired: every use case built once over one store handle and one HTTP client, so that all
/// authorized calls in this process share one refresher.
public struct AppContainer: Sendable {
    /// Signs a user in.
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
    /// Where the session is kept.
    public let repository: any SessionRepository
    /// The store handle, for the keychain's own operations.
    public let keychain: KeychainHandle
    /// The gateway, for the demo's replay of a stolen refresh token.
    let gateway: any AuthenticationGateway

    /// Seconds one request to the auth server may take.
    static let requestTimeout: Double = 15

    /// Builds the app from `configuration`, opening (or creating) the store.
    /// - Throws: ``SecureStoreError`` when the store cannot be opened.
    public init(_ configuration: AppConfiguration) throws(SecureStoreError) {
        try self.init(configuration, http: Self.httpClient(configuration.server), keychain: nil)
    }

    /// Builds the app from `configuration` over a store already open (read first for the session's origin).
    public init(_ configuration: AppConfiguration, keychain: KeychainHandle) {
        // Cannot throw: the store is open, and only opening it throws.
        self = try! AppContainer(configuration, http: Self.httpClient(configuration.server), keychain: keychain)
    }

    /// The HTTP client for `server`.
    private static func httpClient(_ server: ServerLocation) -> any HTTPClient {
        switch server {
        case .remote(let url): return remoteHTTPClient(url)
        case .embedded: return EmbeddedAuthServerTransport(server: EmbeddedAuthServer())
        }
    }

    /// The HTTP client for a remote origin (the server, or an issuer's endpoints).
    static func remoteHTTPClient(_ url: URL) -> any HTTPClient {
        #if canImport(FoundationNetworking)
            // On Linux URLSession spins a core while it waits for a reply; curl's easy interface idles.
            return CurlHTTPClient(baseURL: url, timeout: requestTimeout)
        #else
            return URLSessionHTTPClient(baseURL: url, timeout: requestTimeout)
        #endif
    }

    /// The gateway that can revoke `session`'s refresh token where it was issued: its issuer's remembered
    /// endpoints, or the remote server and contract it was signed in with; `nil` when neither is known.
    static func revocationGateway(for session: Session, now: @escaping @Sendable () -> Date)
        -> (any AuthenticationGateway)?
    {
        if let route = IssuerRoute(stored: session, now: now) { return route.gateway }
        guard let origin = session.origin, let url = URL(string: origin.server),
            ["http", "https"].contains(url.scheme?.lowercased() ?? "")
        else { return nil }
        let http = remoteHTTPClient(url)
        switch ServerContract(rawValue: origin.contract) {
        case .oauth: return OAuthAuthenticationGateway(http: http, clientID: origin.clientID, now: now)
        case .header: return HeaderAuthenticationGateway(http: http, clientID: origin.clientID, now: now)
        case nil: return nil
        }
    }

    /// Builds the app over a given HTTP client (the demo's embedded server, a test's).
    init(_ configuration: AppConfiguration, http base: any HTTPClient, keychain opened: KeychainHandle? = nil)
        throws(SecureStoreError)
    {
        var storeConfiguration = configuration.store
        let http: any HTTPClient
        if let onWait = configuration.onWait {
            if storeConfiguration.onLongWait == nil { storeConfiguration.onLongWait = { onWait(.storeLock) } }
            http = PatientHTTPClient(base, onWait: onWait)
        } else {
            http = base
        }
        let keychain: KeychainHandle
        if let opened { keychain = opened } else { keychain = try storeConfiguration.open() }
        let claimants = keychain.refreshClaimants
        let repository = SecureStoreSessionRepository(
            store: keychain.items, account: configuration.account, claimantIsGone: claimants.isGone)
        let contractGateway: any AuthenticationGateway =
            switch configuration.contract {
            case .oauth: OAuthAuthenticationGateway(http: http, clientID: configuration.clientID, now: configuration.now)
            case .header: HeaderAuthenticationGateway(http: http, clientID: configuration.clientID, now: configuration.now)
            }
        // A session signed in through discovery is refreshed, revoked and asked about at its issuer's
        // own endpoints, whatever --server says.
        let issuerClients: HTTPClientForOrigin =
            if case .embedded = configuration.server { { _ in http } } else { { Self.remoteHTTPClient($0) } }
        let issuerRoute = IssuerRoute(stored: try? repository.load(), now: configuration.now, clients: issuerClients)
        let gateway = issuerRoute?.gateway ?? contractGateway
        let refresher = RefreshSession(
            gateway: gateway, repository: repository, policy: Self.safePolicy(configuration.policy),
            ownerID: claimants.ownerID(), now: configuration.now, onWait: configuration.onWait,
            stormGuard: configuration.stormGuard, stormKey: keychain.storePath + "\u{0}" + configuration.account.value)
        self.keychain = keychain
        self.repository = repository
        self.gateway = gateway
        // A replaced session signed in under another contract or client (at the same server) is revoked
        // in its own.
        let now = configuration.now
        signIn = SignIn(
            gateway: contractGateway, repository: repository, origin: configuration.origin,
            gatewayForOrigin: { origin in
                switch ServerContract(rawValue: origin.contract) {
                case .oauth: OAuthAuthenticationGateway(http: http, clientID: origin.clientID, now: now)
                case .header: HeaderAuthenticationGateway(http: http, clientID: origin.clientID, now: now)
                case nil: nil
                }
            })
        validateAuthentication = ValidateAuthentication(
            repository: repository, policy: configuration.policy, now: configuration.now)
        refreshSession = refresher
        performAuthorizedCall = PerformAuthorizedCall(
            repository: repository, refresher: refresher, policy: configuration.policy, now: configuration.now)
        signOut = SignOut(gateway: gateway, repository: repository)
        profile = issuerRoute?.profile ?? ProfileAPI(http: http)
    }

    /// The signed-in user, through an authorized call to `/api/me`.
    public func currentUser() async throws(AuthenticationError) -> User {
        let profile = profile
        return try await Self.withStoreThreads { () async throws(AuthenticationError) in
            try await performAuthorizedCall { token async throws(AuthenticationError) in try await profile.me(token) }
        }
    }

    /// Forces a refresh of the stored session now.
    /// - Throws: ``AuthenticationError/notSignedIn`` and what ``RefreshSession/refresh(replacing:)`` throws.
    public func refreshNow() async throws(AuthenticationError) -> Session {
        try await Self.withStoreThreads { () async throws(AuthenticationError) in
            guard let session = try repository.load() else { throw .notSignedIn }
            return try await refreshSession.refresh(replacing: session)
        }
    }

    /// Where the app's store calls run: threads of their own, off Swift's cooperative pool.
    static let storeThreads = DispatchTaskExecutor(label: "hardtack.store-calls")

    /// Whether the calling code runs on the app's store threads (for tests).
    package static var isOnStoreThreads: Bool { storeThreads.isCurrent }

    /// Runs `body` with its work, the use cases' actors and their store calls on threads of the app's
    /// own rather than Swift's cooperative pool. A store call blocks its thread while it waits for the
    /// store's lock or, on PostgreSQL, for the server (each wait bounded by the store's deadlines), and
    /// the pool has one thread per core: a backend serving many requests at once calls the use cases
    /// inside this, so that waiting on the store never starves its other tasks. ``currentUser()`` and
    /// ``refreshNow()`` do so themselves. Suspensions (HTTP calls) hold no thread either way.
    public static func withStoreThreads<Value, Failure: Error>(_ body: () async throws(Failure) -> Value)
        async throws(Failure) -> Value
    {
        try await withTaskExecutorPreference(storeThreads, operation: body)
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
