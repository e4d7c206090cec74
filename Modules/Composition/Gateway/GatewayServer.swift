import Data
import Domain
import Foundation
public import Gateway
import MicroHTTPD
import OpenSSLCrypto
import CurlHTTP

/// The gateway, wired: the store opened, the issuer discovered, the ``Gateway`` over them, and
/// libmicrohttpd serving it on the given address.
public final class GatewayServer: Sendable {
    private let server: MicroHTTPServer
    private let keychain: KeychainHandle
    private let sweeper: Task<Void, Never>
    /// The gateway itself.
    public let gateway: Gateway

    /// The bound port.
    public var port: UInt16 { server.port }
    /// Requests being read, handled or answered now.
    public var requestsInFlight: Int { server.requestsInFlight }
    /// `http://HOST:PORT`, where it listens.
    public var listeningURL: String {
        server.host.contains(":") ? "http://[\(server.host)]:\(server.port)" : "http://\(server.host):\(server.port)"
    }

    /// How many open files (descriptors) a gateway of `configuration` may need at once: each browser
    /// connection and the upstream call it may be waiting on, the connections each loop's HTTP clients keep
    /// for reuse (one client per upstream origin, one for the issuer), each loop's own few, the store's
    /// connections, and a margin for the rest (key and store files, standard streams).
    public static func descriptorsWanted(for configuration: GatewayConfiguration) -> Int {
        let limits = serverLimits(for: configuration)
        let clients = Set(configuration.routes.map(\.origin)).count + 1
        return 2 * max(limits.connections, 1) + limits.loops * (clients * CurlHTTPClient.defaultIdleConnections + 8)
            + configuration.storeConnections + 64
    }

    /// The HTTP server's bounds for `configuration`: its loops, connection limit and timeout, and
    /// ``MicroHTTPServerLimits``' defaults for the rest.
    private static func serverLimits(for configuration: GatewayConfiguration) -> MicroHTTPServerLimits {
        MicroHTTPServerLimits(
            connections: configuration.maxConnections, idleSeconds: configuration.connectionTimeout,
            headSeconds: configuration.connectionTimeout, threads: configuration.threads)
    }

    /// Discovers the issuer, opens the store, and starts serving on `host`:`port` (0 for a free port), on
    /// ``GatewayConfiguration/threads`` event loops, within its connection limit and timeout (the other
    /// bounds are ``MicroHTTPServerLimits``' defaults).
    /// - Throws: ``GatewayStartFailure``.
    public init(
        _ configuration: GatewayConfiguration, store: StoreConfiguration, host: String, port: UInt16,
        log: @escaping @Sendable (String) -> Void
    ) async throws(GatewayStartFailure) {
        // The issuer first: a gateway that cannot start makes no store.
        let clients: HTTPClientForOrigin = { AppContainer.remoteHTTPClient($0) }
        let metadata: ProviderMetadata
        do throws(AuthenticationError) {
            metadata = try await OpenIDDiscovery(clients: clients).metadata(issuer: configuration.issuer)
        } catch {
            throw .discovery(error)
        }
        do throws(AuthenticationError) {
            try Gateway.checkRevocation(configuration, metadata)
        } catch {
            throw .auth(error)
        }
        // On PostgreSQL, as many connections as configured for reads (one queues every call behind its lock,
        // but each re-checks its rows after another's write); each unlocks the store, so with a passphrase, one.
        let connections =
            StoreConfiguration.isPostgreSQL(store.storePath) && !store.key.isPassphrase
            ? max(1, configuration.storeConnections) : 1
        var extra: [any SecureItemStore] = []
        do throws(SecureStoreError) {
            keychain = try await store.open()
            for _ in 1..<connections { extra.append(try await store.open().items) }
        } catch {
            throw .store(error)
        }
        let keychain = keychain
        let claimants = await keychain.refreshClaimants
        let ownerID = await StoreThreads.run { claimants.ownerID() }
        let upstreamTimeout = configuration.upstreamTimeout
        let upstreamLimit = configuration.upstreamResponseBytes ?? Int.max
        let items: any SecureItemStore = extra.isEmpty ? keychain.items : PooledItemStore([keychain.items] + extra)
        // One client per upstream, kept for the gateway's life: each keeps its connections open for the next calls.
        var upstreams: [URL: CurlHTTPClient] = [:]
        for route in configuration.routes where upstreams[route.origin] == nil {
            upstreams[route.origin] = CurlHTTPClient(
                baseURL: route.origin, timeout: upstreamTimeout, responseSizeLimit: upstreamLimit)
        }
        let upstreamClients = upstreams
        // Made before the server, so that the gateway's metrics can read what the server counts.
        let tally = MicroHTTPConnectionTally()
        let dependencies = GatewayDependencies(
            store: items, metadata: metadata, signatures: OpenSSLSignatureVerifier(), signInCrypto: OpenSSLSignInCrypto(),
            clients: clients,
            upstreamClients: {
                upstreamClients[$0] ?? CurlHTTPClient(baseURL: $0, timeout: upstreamTimeout, responseSizeLimit: upstreamLimit)
            },
            ownerID: ownerID, claimantIsGone: claimants.isGone,
            storeAnswers: {
                switch await items.lookup(GatewayServer.probe, returning: .attributes) {
                case .found, .notFound: true
                case .locked, .damaged: false
                }
            }, log: log, connections: { GatewayConnections(open: tally.open, timesFull: tally.timesFull) })
        let gateway: Gateway
        do throws(AuthenticationError) {
            gateway = try await Gateway(configuration, dependencies: dependencies)
        } catch {
            throw .auth(error)
        }
        self.gateway = gateway
        do throws(MicroHTTPServerError) {
            server = try MicroHTTPServer(
                host: host, port: port, limits: Self.serverLimits(for: configuration), replying: { request in await gateway.reply(to: request) },
                refused: { method, target, status in gateway.refused(method: method, target: target, status: status) },
                connections: tally)
        } catch {
            throw .listen(error.description)
        }
        sweeper = Task.detached { await gateway.sweepPeriodically() }
    }

    /// What `/healthz` reads: the login-state key, found once the gateway has started (any answer, found or
    /// not, means the store answers; a found item needs no check of every row).
    static let probe = ItemAttributes.genericPassword(
        service: GatewayStoreItems.service, account: GatewayStoreItems.loginKeyAccount)

    /// Stops accepting, lets the requests in flight (answers still streaming too) finish for up to `grace`,
    /// cuts what is left, and stops; then waits up to `settle` for the work of requests it gave up on (a
    /// refresh whose new tokens are not yet stored: lost with the process, it would end its session at the
    /// next refresh, when the issuer sees the old token again) and for a sweep or a back-channel logout's
    /// revocations under way, which start no send once they see this begin (``Gateway/beginStopping()``), so
    /// that the exit that follows cuts no store write and no call to the issuer. That work has its own
    /// bounds (the issuer's timeout, the store write's retries: within the refresh claim's 45 s lease),
    /// within `settle`.
    public func stop(grace: Duration = .seconds(10), settle: Duration = .seconds(60)) async {
        gateway.beginStopping()
        sweeper.cancel()
        await server.stop(grace: grace)
        let deadline = ContinuousClock.now.advanced(by: settle)
        while gateway.requestsInHand > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
