import Domain
import Foundation
import Testing

@Suite struct ValidateAuthenticationTests {
    @Test func noSessionMeansTheSignInFlow() {
        let fixture = UseCaseFixture(signedIn: false)
        let decide = ValidateAuthentication(repository: fixture.repository, policy: fixture.policy, now: fixture.clock.now)
        #expect(decide() == .signedOut)
        #expect(!decide().showsMainFlow)
    }

    @Test func aFreshTokenIsSignedInWithItsTimeLeft() {
        let fixture = UseCaseFixture()
        fixture.clock.advance(by: 100)
        let decide = ValidateAuthentication(repository: fixture.repository, policy: fixture.policy, now: fixture.clock.now)
        #expect(decide() == .signedIn(user: User(id: "u1", name: "Alice"), accessTokenSecondsLeft: 200))
        #expect(decide().showsMainFlow)
    }

    @Test func anExpiredAccessTokenNeedsARefreshButStaysInTheMainFlow() {
        let fixture = UseCaseFixture()
        fixture.clock.advance(by: 280)
        let decide = ValidateAuthentication(repository: fixture.repository, policy: fixture.policy, now: fixture.clock.now)
        #expect(decide() == .signedInNeedsRefresh(user: User(id: "u1", name: "Alice")))
        #expect(decide().showsMainFlow)
    }

    @Test func anUnknownExpiryIsSignedIn() {
        let fixture = UseCaseFixture(accessLifetime: nil)
        fixture.clock.advance(by: 86_400)
        let decide = ValidateAuthentication(repository: fixture.repository, policy: fixture.policy, now: fixture.clock.now)
        #expect(decide() == .signedIn(user: User(id: "u1", name: "Alice"), accessTokenSecondsLeft: nil))
    }

    @Test func anUnreadableStoreNeverSignsTheUserOut() {
        let fixture = UseCaseFixture()
        fixture.repository.setUnavailable("locked")
        let decide = ValidateAuthentication(repository: fixture.repository, policy: fixture.policy, now: fixture.clock.now)
        #expect(decide() == .storeUnavailable(reason: "locked"))
        fixture.repository.setUnavailable(nil)
        #expect(fixture.repository.stored != nil)
    }
}
