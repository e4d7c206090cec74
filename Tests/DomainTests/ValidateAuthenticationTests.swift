import Domain
import Foundation
import Testing

@Suite struct ValidateAuthenticationTests {
    @Test func noSessionMeansTheSignInFlow() async {
        let fixture = UseCaseFixture(signedIn: false)
        let decide = ValidateAuthentication(repository: fixture.repository, policy: fixture.policy, now: fixture.clock.now)
        #expect(await decide() == .signedOut)
        #expect(await !decide().showsMainFlow)
    }

    @Test func aFreshTokenIsSignedInWithItsTimeLeft() async {
        let fixture = UseCaseFixture()
        fixture.clock.advance(by: 100)
        let decide = ValidateAuthentication(repository: fixture.repository, policy: fixture.policy, now: fixture.clock.now)
        #expect(await decide() == .signedIn(user: User(id: "u1", name: "Alice"), accessTokenSecondsLeft: 200))
        #expect(await decide().showsMainFlow)
    }

    @Test func anExpiredAccessTokenNeedsARefreshButStaysInTheMainFlow() async {
        let fixture = UseCaseFixture()
        fixture.clock.advance(by: 280)
        let decide = ValidateAuthentication(repository: fixture.repository, policy: fixture.policy, now: fixture.clock.now)
        #expect(await decide() == .signedInNeedsRefresh(user: User(id: "u1", name: "Alice")))
        #expect(await decide().showsMainFlow)
    }

    @Test func anUnknownExpiryIsSignedIn() async {
        let fixture = UseCaseFixture(accessLifetime: nil)
        fixture.clock.advance(by: 86_400)
        let decide = ValidateAuthentication(repository: fixture.repository, policy: fixture.policy, now: fixture.clock.now)
        #expect(await decide() == .signedIn(user: User(id: "u1", name: "Alice"), accessTokenSecondsLeft: nil))
    }

    @Test func anUnreadableStoreNeverSignsTheUserOut() async {
        let fixture = UseCaseFixture()
        fixture.repository.setUnavailable("locked")
        let decide = ValidateAuthentication(repository: fixture.repository, policy: fixture.policy, now: fixture.clock.now)
        #expect(await decide() == .storeUnavailable(reason: "locked"))
        #expect(await !decide().showsMainFlow)
    }

    @Test func anExpiredRefreshTokenWithAnExpiredAccessTokenIsSignedOut() async throws {
        let fixture = UseCaseFixture(signedIn: false)
        let now = fixture.clock.date
        try fixture.repository.replace(
            with: Session(
                accessToken: try AccessToken(value: SecretBytes(utf8: "a"), issuedAt: now, expiresAt: now + 60),
                refreshToken: try RefreshToken(value: SecretBytes(utf8: "r"), expiresAt: now + 3600),
                user: nil, method: .password))
        let decide = ValidateAuthentication(repository: fixture.repository, policy: fixture.policy, now: fixture.clock.now)
        fixture.clock.advance(by: 120)
        #expect(await decide() == .signedInNeedsRefresh(user: nil))
        fixture.clock.advance(by: 3600)
        #expect(await decide() == .signedOut)
    }
}
