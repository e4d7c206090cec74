#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
public import Composition
public import Data
public import Domain
public import Foundation
import DevelopmentServers

/// The demo's world: the embedded auth server and the app sharing one clock that the demo moves by
/// hand (no sleeping), over a real store file in a fresh private temporary directory unless a path
/// is given.
public final class DemoEnvironment: Sendable {
    /// The store file.
    public let storePath: String
    /// Whether the store lives in a temporary directory that ``removeTemporaryFiles()`` deletes.
    public let isTemporary: Bool
    let server: EmbeddedAuthServer
    let clock: ServerClock
    private let configuration: AppConfiguration

    /// The username and password the embedded server accepts.
    public static let credentials = (username: AuthServerUser.alice.username, password: AuthServerUser.alice.password)
    /// How long the embedded server's access tokens live, in seconds.
    public let accessTokenLifetime: TimeInterval

    /// Sets up the world; `storePath` nil means a new temporary directory.
    /// - Throws: ``SecureStoreError`` when the temporary directory cannot be made.
    public init(storePath: String?, contract: ServerContract = .oauth) throws(SecureStoreError) {
        if let storePath {
            guard !StoreConfiguration.isPostgreSQL(storePath) else {
                throw .invalidKeyMaterial("the demo runs on a store file, not on a PostgreSQL server")
            }
            self.storePath = storePath
            isTemporary = false
        } else {
            let temporary = NSTemporaryDirectory().hasSuffix("/") ? NSTemporaryDirectory() : NSTemporaryDirectory() + "/"
            var template = Array((temporary + "hardtack-demo-XXXXXX").utf8CString)
            guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
                throw .insecurePermissions(
                    path: temporary, fix: "a private temporary directory cannot be created there; set TMPDIR to a writable directory.")
            }
            self.storePath = String(cString: made) + "/keychain.db"
            isTemporary = true
        }
        clock = ServerClock()
        let options = AuthServerOptions()
        accessTokenLifetime = options.accessTokenLifetime
        server = EmbeddedAuthServer(options: options, clock: clock)
        let clock = clock
        configuration = AppConfiguration(
            store: StoreConfiguration(
                storePath: self.storePath, key: .keyFile(path: StoreConfiguration.defaultKeyFile(forStore: self.storePath))),
            server: .inProcess(EmbeddedAuthServerTransport(server: server)), contract: contract, now: { clock.now })
    }

    /// Starts the app, as a launch does: a new container over the same store and server.
    public func launch() async throws(SecureStoreError) -> AppContainer {
        try await AppContainer(configuration)
    }

    /// The session `app` has stored, as the demo shows it between steps.
    public static func storedSession(in app: AppContainer) async throws(AuthenticationError) -> Session? {
        try await app.repository.load()
    }

    /// Moves the shared clock forward.
    public func advanceClock(by seconds: TimeInterval) {
        clock.advance(by: seconds)
    }

    /// Makes the server fail every request (503), answer garbage (an HTML page), or be unreachable,
    /// or heals it.
    public func simulateServerFailure(_ failure: ServerFailure) async {
        switch failure {
        case .none: await server.respondWith(.none)
        case .serverError: await server.respondWith(.serverError)
        case .garbage: await server.respondWith(.garbage)
        case .down: await server.respondWith(.down)
        }
    }

    /// The server's counters now.
    public func serverCounters() async -> ServerCounters {
        let counters = await server.counters
        return ServerCounters(
            signIns: counters.signIns, refreshes: counters.refreshes, reuseDetections: counters.reuseDetections,
            revocations: counters.revocations, meCalls: counters.meCalls, unauthorized: counters.unauthorized)
    }

    /// Presents `stolen`'s refresh token to the server as an attacker holding a copy would, and
    /// returns what the server said.
    public func replayStolenRefreshToken(of stolen: Session, through app: AppContainer) async -> Result<Void, AuthenticationError> {
        do throws(AuthenticationError) {
            _ = try await app.gateway.refresh(stolen)
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// Deletes the temporary directory (never a store the user named).
    public func removeTemporaryFiles() {
        guard isTemporary else { return }
        try? FileManager.default.removeItem(atPath: (storePath as NSString).deletingLastPathComponent)
    }
}
