public import Foundation

/// Makes a call that needs the access token: refreshes first when the token is known to be expired,
/// and on a 401 refreshes once and retries once, no more.
public struct PerformAuthorizedCall: Sendable {
    private let repository: any SessionRepository
    private let refresher: RefreshSession
    private let policy: AuthenticationPolicy
    private let now: @Sendable () -> Date

    /// Creates the use case; every call made through one refresher shares its refreshes.
    public init(
        repository: any SessionRepository, refresher: RefreshSession, policy: AuthenticationPolicy,
        now: @escaping @Sendable () -> Date
    ) {
        self.repository = repository
        self.refresher = refresher
        self.policy = policy
        self.now = now
    }

    /// Runs `call` with a usable access token.
    /// - Throws: ``AuthenticationError/notSignedIn``, ``AuthenticationError/unauthorized`` when even a
    ///   refreshed token gets a 401, and whatever the refresh or the call throws.
    public func callAsFunction<Value: Sendable>(
        _ call: @Sendable (AccessToken) async throws(AuthenticationError) -> AuthorizedOutcome<Value>
    ) async throws(AuthenticationError) -> Value {
        guard var session = try await repository.load() else { throw .notSignedIn }
        if !session.accessToken.isUsable(at: now(), skew: policy.clockSkew) {
            session = try await refresher.refresh(replacing: session)
        }
        if case .success(let value) = try await call(session.accessToken) { return value }
        session = try await refresher.refresh(replacing: session)
        if case .success(let value) = try await call(session.accessToken) { return value }
        throw .unauthorized
    }
}
