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
    /// Told once, after a second, when the app is kept waiting (for the server, another process's
    /// refresh, the store's lock).
    public var onWait: (@Sendable (WaitReason) -> Void)?
    /// The clock every rule reads.
    public var now: @Sendable () -> Date
    /// Whose session: one store keeps any number, each under its account name.
    public var account: AccountName = .default
    /// Counts refreshes against the policy's storm limits, per account and for all accounts together:
    /// every container of the process shares one unless a test gives its own.
    public var stormGuard: RefreshStormGuard = .processWide

    /// What a sign-in records as the session's origin: the remote server, contract and client id
    /// (`nil` for a server in this process, which lives only as long as the process).
    public var origin: SessionOrigin? {
        guard case .remote(let url) = server else { return nil }
        return SessionOrigin(server: Self.canonical(url), contract: contract.rawValue, clientID: clientID)
    }

    /// `url` as sessions record and compare it: scheme and host in lower case, no trailing `/`.
    public static func canonical(_ url: URL) -> String {
        var text = url.absoluteString
        if var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            let scheme = components.scheme?.lowercased()
            let host = components.host?.lowercased()
            components.scheme = scheme
            components.host = host
            text = components.string ?? text
        }
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

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
