import Domain
import Foundation
import TestSupport

/// The pieces most use-case tests share: a clock, a scripted server, an in-memory repository.
struct UseCaseFixture {
    let clock = TestClock()
    let gateway: ScriptedAuthenticationGateway
    let repository: InMemorySessionRepository
    let policy = AuthenticationPolicy(clockSkew: 30, refreshLease: 15, maxRefreshesPerWindow: 5, refreshWindow: 60)

    init(accessLifetime: TimeInterval? = 300, signedIn: Bool = true) {
        gateway = ScriptedAuthenticationGateway(clock: clock, accessLifetime: accessLifetime)
        repository = InMemorySessionRepository(session: signedIn ? gateway.makeSession(serial: 0) : nil)
    }

    /// A refresher of this fixture's session; `policy` in place of the fixture's, when given.
    func refresher(owner: String = "process-1", policy: AuthenticationPolicy? = nil) -> RefreshSession {
        RefreshSession(gateway: gateway, repository: repository, policy: policy ?? self.policy, ownerID: owner, now: clock.now)
    }

    func storedRefreshToken() -> String? { repository.stored?.refreshToken.value.revealedString() }
    func storedAccessToken() -> String? { repository.stored?.accessToken.value.revealedString() }
}
