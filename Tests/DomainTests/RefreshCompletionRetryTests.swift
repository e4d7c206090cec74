import Domain
import Foundation
import TestSupport
import Testing

/// The store goes away between the token endpoint's answer and the completion (a database restarting):
/// the server has already rotated the refresh token, so the claimant keeps the new tokens and tries
/// to store them again for a bounded time instead of giving up at once.
@Suite struct RefreshCompletionRetryTests {
    /// Makes the store unreachable while the server answers, as a restart that began meanwhile would.
    private func storeGoesAwayDuringTheRefresh(_ fixture: UseCaseFixture) {
        let repository = fixture.repository
        fixture.gateway.setDuringRefresh { repository.setUnavailable("the database is restarting") }
    }

    @Test(.timeLimit(.minutes(10)))
    func theNewTokensAreStoredOnceTheStoreIsBack() async throws {
        let fixture = UseCaseFixture()
        let repository = fixture.repository
        // The first two attempts to store fail, the third finds the store back: no timing involved, so
        // a starved scheduler cannot make the store come back too late.
        fixture.gateway.setDuringRefresh { repository.setUnavailable("the database is restarting", forCalls: 2) }
        let stale = try #require(fixture.repository.stored)
        // A retry window (and a lease, which bounds it) far longer than the two pauses (0.1 s and 0.2 s), so
        // no slow machine can close it.
        let refresher = fixture.refresher(policy: AuthenticationPolicy(refreshLease: 900, completionRetrySeconds: 600))
        let refreshed = try await refresher.refresh(replacing: stale)
        #expect(repository.refusedCount == 2, "the store refused twice before it took the tokens")
        #expect(fixture.gateway.refreshCalls == 1)
        #expect(refreshed.refreshToken.value.revealedString() == "refresh-1")
        #expect(fixture.storedRefreshToken() == "refresh-1", "the rotated token was kept, not lost")
        #expect(repository.writeCount == 1, "stored once, on the attempt that found the store back")
    }

    @Test(.timeLimit(.minutes(10)))
    func aStoreThatStaysAwayEndsTheCallAfterTheRetryWindowAndSaysTheSessionIsLost() async throws {
        let fixture = UseCaseFixture()
        storeGoesAwayDuringTheRefresh(fixture)
        let stale = try #require(fixture.repository.stored)
        let refresher = fixture.refresher(policy: AuthenticationPolicy(completionRetrySeconds: 0.5))
        // The server rotated the token and the new one is gone with this call: not "unavailable" (which
        // promises the session is kept) but a failed write that says the session is lost.
        await #expect(throws: AuthenticationError.storageFailed(RefreshSession.rotationLost + "the database is restarting")) {
            try await refresher.refresh(replacing: stale)
        }
        #expect(fixture.gateway.refreshCalls == 1, "the token was presented once, never again")
        fixture.repository.setUnavailable(nil)
        #expect(fixture.storedRefreshToken() == "refresh-0")
    }

    @Test(.timeLimit(.minutes(10)))
    func aTokenTheServerDidNotRotateKeepsTheSessionWhenTheStoreStaysAway() async throws {
        let fixture = UseCaseFixture()
        fixture.gateway.setRefreshBehaviour(.accessOnly)
        storeGoesAwayDuringTheRefresh(fixture)
        let stale = try #require(fixture.repository.stored)
        let refresher = fixture.refresher(policy: AuthenticationPolicy(completionRetrySeconds: 0.5))
        // The stored refresh token still works, so the store's own error, which keeps the session, is right.
        await #expect(throws: AuthenticationError.storeUnavailable("the database is restarting")) {
            try await refresher.refresh(replacing: stale)
        }
        fixture.repository.setUnavailable(nil)
        #expect(fixture.storedRefreshToken() == "refresh-0")
    }

    /// However long the retry window, the completion stops 5 s before the claim's lease runs out: past
    /// it, another process may take the claim over and present the spent token.
    @Test(.timeLimit(.minutes(10)))
    func theRetriesStopBeforeTheClaimsLeaseRunsOut() async throws {
        let fixture = UseCaseFixture()
        storeGoesAwayDuringTheRefresh(fixture)
        let stale = try #require(fixture.repository.stored)
        // A 50 s window, a 6 s lease: the completion may try for 1 s only.
        let refresher = fixture.refresher(policy: AuthenticationPolicy(refreshLease: 6, completionRetrySeconds: 50))
        let started = ContinuousClock.now
        await #expect(throws: AuthenticationError.storageFailed(RefreshSession.rotationLost + "the database is restarting")) {
            try await refresher.refresh(replacing: stale)
        }
        let elapsed = ContinuousClock.now - started
        // Bounded by the lease, not the window: well under 50 s even on a starved machine.
        #expect(elapsed < .seconds(30), "the completion tried for \(elapsed), past its lease")
        #expect(fixture.repository.refusedCount >= 1)
    }
}
