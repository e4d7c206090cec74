public import Data
public import Domain
public import Foundation

/// Everything the composition root needs to build the app: the store, the server and its contract,
/// the client id, the rules, and the clock.
public struct AppConfiguration: Sendable {
    /// The client id used when none is given.
    public static let defaultClientID = "hardtack-cli"

    /// The secure store.
    public var store: StoreConfiguration
    /// The auth server.
    public var server: ServerLocation
    /// Which contract the server speaks.
    public var contract: ServerContract
    /// The OAuth `client_id`.
    public var clientID: String
    /// Clock skew, refresh lease and refresh-storm limits.
    public var policy: AuthenticationPolicy
    /// The clock every rule reads.
    public var now: @Sendable () -> Date

    /// Creates a configuration.
    public init(
        store: StoreConfiguration, server: ServerLocation, contract: ServerContract = .oauth,
        clientID: String = defaultClientID, policy: AuthenticationPolicy = AuthenticationPolicy(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.server = server
        self.contract = contract
        self.clientID = clientID
        self.policy = policy
        self.now = now
    }
}
