public import Foundation

/// The launch-time auto-login decision: is there a session, and is its access token still good?
///
/// Unlike the seeds, "valid" means present and not expired (with the policy's clock-skew allowance),
/// not merely present; and a store that cannot be read never signs the user out.
public struct ValidateAuthentication: Sendable {
    private let repository: any SessionRepository
    private let policy: AuthenticationPolicy
    private let now: @Sendable () -> Date

    /// Creates the use case with an injected clock.
    public init(repository: any SessionRepository, policy: AuthenticationPolicy, now: @escaping @Sendable () -> Date) {
        self.repository = repository
        self.policy = policy
        self.now = now
    }

    /// Decides what to show.
    public func callAsFunction() async -> LaunchDecision {
        let session: Session?
        do {
            session = try await repository.load()
        } catch .storeUnavailable(let reason) {
            return .storeUnavailable(reason: reason)
        } catch .storeDamaged(let reason) {
            return .storeDamaged(reason: reason)
        } catch {
            return .storeUnavailable(reason: error.description)
        }
        return decision(for: session)
    }

    /// The decision for `session` as already loaded (`nil`: none stored), for a caller that needs the
    /// session too and would otherwise read it twice.
    public func decision(for session: Session?) -> LaunchDecision {
        guard let session else { return .signedOut }
        let now = now()
        if session.refreshToken.isExpired(at: now) && !session.accessToken.isUsable(at: now, skew: policy.clockSkew) {
            return .signedOut
        }
        if session.accessToken.isUsable(at: now, skew: policy.clockSkew) {
            return .signedIn(user: session.user, accessTokenSecondsLeft: session.accessToken.remainingLifetime(at: now))
        }
        return .signedInNeedsRefresh(user: session.user)
    }
}
