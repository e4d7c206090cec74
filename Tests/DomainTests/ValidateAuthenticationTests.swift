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
        #expect(!decide().showsMainFlow)
    }

    @Test func anExpiredRefreshTokenWithAnExpiredAccessTokenIsSignedOut() throws {
        let fixture = UseCaseFixture(signedIn: false)
        let now = fixture.clock.date
        try fixture.repository.replace(
            with: Session(
                accessToken: try AccessToken(value: SecretBytes(utf8: "a"), issuedAt: now, expiresAt: now + 60),
                refreshToken: try RefreshToken(value: SecretBytes(utf8: "r"), expiresAt: now + 3600),
                user: nil, method: .password))
        let decide = ValidateAuthentication(repository: fixture.repository, policy: fixture.policy, now: fixture.clock.now)
        fixture.clock.advance(by: 120)
        #expect(decide() == .signedInNeedsRefresh(user: nil))
        fixture.clock.advance(by: 3600)
        #expect(decide() == .signedOut)
    }
}
