public import Data
public import Foundation

/// What the composition root gives a ``Gateway``: the store, the issuer as discovered, the adapters for
/// signatures, randomness and HTTP, this instance's identity for refresh claims, the clock, the log, and the
/// HTTP server's connection figures.
public struct GatewayDependencies: Sendable {
    /// The store the sessions (and the gateway's key) are kept in.
    public var store: any SecureItemStore
    /// The issuer, as discovery found it.
    public var metadata: ProviderMetadata
    /// Checks ID token and logout token signatures.
    public var signatures: any JWSSignatureVerifier
    /// Random values and SHA-256 for sign-in requests.
    public var signInCrypto: any SignInCrypto
    /// HTTP clients for the issuer's origins.
    public var clients: HTTPClientForOrigin
    /// HTTP clients for the upstreams' origins (their own timeout and size limit).
    public var upstreamClients: HTTPClientForOrigin
    /// This instance's owner id for refresh claims.
    public var ownerID: String
    /// Whether the owner of a refresh claim is known to have ended.
    public var claimantIsGone: @Sendable (String) -> Bool
    /// Whether the store answers now (for `/healthz`).
    public var storeAnswers: @Sendable () async -> Bool
    /// The clock.
    public var now: @Sendable () -> Date
    /// Where the one JSON line per request goes.
    public var log: @Sendable (String) -> Void
    /// The HTTP server's browser connections now (`nil` when none tells them).
    public var connections: @Sendable () -> GatewayConnections?

    /// Creates the dependencies.
    public init(
        store: any SecureItemStore, metadata: ProviderMetadata, signatures: any JWSSignatureVerifier,
        signInCrypto: any SignInCrypto, clients: @escaping HTTPClientForOrigin,
        upstreamClients: @escaping HTTPClientForOrigin, ownerID: String,
        claimantIsGone: @escaping @Sendable (String) -> Bool, storeAnswers: @escaping @Sendable () async -> Bool,
        now: @escaping @Sendable () -> Date = { Date() }, log: @escaping @Sendable (String) -> Void,
        connections: @escaping @Sendable () -> GatewayConnections? = { nil }
    ) {
        self.store = store
        self.metadata = metadata
        self.signatures = signatures
        self.signInCrypto = signInCrypto
        self.clients = clients
        self.upstreamClients = upstreamClients
        self.ownerID = ownerID
        self.claimantIsGone = claimantIsGone
        self.storeAnswers = storeAnswers
        self.now = now
        self.log = log
        self.connections = connections
    }
}
