import Domain
import Foundation
import TestSupport
import Testing

@Suite struct RefreshSessionTests {
    @Test func concurrentCallersShareOneRefresh() async throws {
        let fixture = UseCaseFixture()
        let refresher = fixture.refresher()
        let stale = try #require(fixture.repository.stored)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 {
                group.addTask { try await refresher.refresh(replacing: stale).refreshToken.value.revealedString() ?? "" }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(fixture.gateway.refreshCalls == 1)
        #expect(tokens == ["refresh-1"])
        #expect(await refresher.refreshCount == 1)
    }

    @Test func twoProcessesSharingAStoreRefreshOncePerGeneration() async throws {
        let fixture = UseCaseFixture()
        let first = fixture.refresher(owner: "process-1")
        let second = fixture.refresher(owner: "process-2")
        let stale = try #require(fixture.repository.stored)
        async let a = first.refresh(replacing: stale)
        async let b = second.refresh(replacing: stale)
        let (sessionA, sessionB) = try await (a, b)
        #expect(fixture.gateway.refreshCalls == 1)
        #expect(fixture.gateway.presentedRefreshTokens == ["refresh-0"])
        #expect(sessionA.refreshToken.isSameToken(as: sessionB.refreshToken))
    }

    @Test func theNewRefreshTokenIsStoredBeforeTheAccessTokenIsUsed() async throws {
        let fixture = UseCaseFixture()
        let session = try await fixture.refresher().refresh(replacing: try #require(fixture.repository.stored))
        #expect(fixture.storedRefreshToken() == "refresh-1")
        #expect(fixture.storedAccessToken() == session.accessToken.value.revealedString())
    }

    @Test func withoutANewRefreshTokenTheOldOneIsKept() async throws {
        let fixture = UseCaseFixture()
        fixture.gateway.setRefreshBehaviour(.accessOnly)
        let session = try await fixture.refresher().refresh(replacing: try #require(fixture.repository.stored))
        #expect(session.refreshToken.value.revealedString() == "refresh-0")
        #expect(fixture.storedAccessToken() == "access-1")
        #expect(fixture.storedRefreshToken() == "refresh-0")
    }

    @Test func aRejectedRefreshTokenEndsTheSession() async throws {
        let fixture = UseCaseFixture()
        fixture.gateway.setRefreshBehaviour(.reject)
        await #expect(throws: AuthenticationError.sessionExpired) {
            try await fixture.refresher().refresh(replacing: try #require(fixture.repository.stored))
        }
        #expect(fixture.repository.stored == nil)
    }

    @Test func aNetworkFailureKeepsTheSessionAndReleasesTheClaim() async throws {
        let fixture = UseCaseFixture()
        fixture.gateway.setRefreshBehaviour(.fail)
        let stale = try #require(fixture.repository.stored)
        await #expect(throws: AuthenticationError.temporarilyUnavailable("connection refused")) {
            try await fixture.refresher(owner: "process-1").refresh(replacing: stale)
        }
        #expect(fixture.storedRefreshToken() == "refresh-0")
        // The request may have reached the server: the claim keeps its mark, with its lease ended.
        #expect(fixture.repository.claim?.owner == "process-1")
        #expect(fixture.repository.claim?.sent == true)
        // Another process can claim at once: the failed one let go of its claim.
        fixture.gateway.setRefreshBehaviour(.rotate)
        _ = try await fixture.refresher(owner: "process-2").refresh(replacing: stale)
        #expect(fixture.storedRefreshToken() == "refresh-2")
    }

    @Test func anOutageLeavesNoSessionRefusedOnceItIsOver() async throws {
        // Calls every 0.25 s through a 30 s outage: the server is asked only after each pause (0.5 s,
        // doubling to 2 s), the silences count toward no storm, and a call after it ends refreshes.
        let fixture = UseCaseFixture()
        let refresher = fixture.refresher()
        fixture.gateway.setRefreshBehaviour(.fail)
        for _ in 0..<120 {
            await #expect(throws: AuthenticationError.self) {
                try await refresher.refresh(replacing: try #require(fixture.repository.stored))
            }
            fixture.clock.advance(by: 0.25)
        }
        // At 0, 0.5, 1.5, then every 2 s to 29.5: 17 tries, not 120.
        #expect(fixture.gateway.refreshCalls == 17)
        // The refusals in between came before any claim: the last try's "sent" mark is still there.
        #expect(fixture.repository.claim?.sent == true)
        fixture.gateway.setRefreshBehaviour(.rotate)
        fixture.clock.advance(by: fixture.policy.unansweredRefreshPauseLimit)
        _ = try await refresher.refresh(replacing: try #require(fixture.repository.stored))
        #expect(fixture.gateway.refreshCalls == 18)
        #expect(fixture.storedRefreshToken() != "refresh-0")
    }

    @Test func aPausedCallerGetsWhatAnotherProcessStoredMeanwhile() async throws {
        let fixture = UseCaseFixture()
        let stale = try #require(fixture.repository.stored)
        let paused = fixture.refresher(owner: "process-1")
        fixture.gateway.setRefreshBehaviour(.fail)
        await #expect(throws: AuthenticationError.self) { try await paused.refresh(replacing: stale) }
        fixture.gateway.setRefreshBehaviour(.rotate)
        let refreshed = try await fixture.refresher(owner: "process-2").refresh(replacing: stale)
        // Within process-1's pause: no request, and the session process-2 stored, not an error.
        let calls = fixture.gateway.refreshCalls
        #expect(try await paused.refresh(replacing: stale).isSameGeneration(as: refreshed))
        #expect(fixture.gateway.refreshCalls == calls)
    }

    @Test func aRefreshStormIsAnErrorNotALoop() async throws {
        let fixture = UseCaseFixture()
        let refresher = fixture.refresher()
        for _ in 0..<fixture.policy.maxRefreshesPerWindow {
            _ = try await refresher.refresh(replacing: try #require(fixture.repository.stored))
        }
        await #expect(throws: AuthenticationError.refreshStorm(refreshes: 5, windowSeconds: 60)) {
            try await refresher.refresh(replacing: try #require(fixture.repository.stored))
        }
        #expect(fixture.gateway.refreshCalls == 5)
        fixture.clock.advance(by: 61)
        _ = try await refresher.refresh(replacing: try #require(fixture.repository.stored))
        #expect(fixture.gateway.refreshCalls == 6)
    }

    @Test func aStaleCallerGetsTheStoredSessionWithoutAnotherRefresh() async throws {
        let fixture = UseCaseFixture()
        let refresher = fixture.refresher()
        let stale = try #require(fixture.repository.stored)
        _ = try await refresher.refresh(replacing: stale)
        let again = try await refresher.refresh(replacing: stale)
        #expect(fixture.gateway.refreshCalls == 1)
        #expect(again.refreshToken.value.revealedString() == "refresh-1")
    }

    @Test func aServerThatKeepsTheRefreshTokenStillGetsOneRefreshPerGeneration() async throws {
        let fixture = UseCaseFixture()
        fixture.gateway.setRefreshBehaviour(.accessOnly)
        let stale = try #require(fixture.repository.stored)
        async let a = fixture.refresher(owner: "process-1").refresh(replacing: stale)
        async let b = fixture.refresher(owner: "process-2").refresh(replacing: stale)
        _ = try await (a, b)
        #expect(fixture.gateway.refreshCalls == 1)
        // A caller still holding the old generation gets the stored one, without presenting anything.
        let again = try await fixture.refresher(owner: "process-3").refresh(replacing: stale)
        #expect(fixture.gateway.refreshCalls == 1)
        #expect(again.accessToken.value.revealedString() == "access-1")
    }

    @Test func aClaimLeftByADeadProcessIsTakenOverAfterItsLease() async throws {
        let fixture = UseCaseFixture()
        let stale = try #require(fixture.repository.stored)
        let now = fixture.clock.date
        guard case .claimed = try fixture.repository.claimRefresh(replacing: stale, owner: "dead", lease: 15, now: now)
        else {
            Issue.record("the dead process's claim should be taken")
            return
        }
        let refresher = fixture.refresher(owner: "alive")
        let waiting = Task { try await refresher.refresh(replacing: stale) }
        try await Task.sleep(for: .milliseconds(100))
        #expect(fixture.gateway.refreshCalls == 0, "a live claim holds others back")
        fixture.clock.advance(by: 16)
        _ = try await waiting.value
        #expect(fixture.gateway.refreshCalls == 1)
        #expect(fixture.storedRefreshToken() == "refresh-1")
    }

    @Test func aSignOutDuringTheRefreshWinsAndTheNewTokenIsRevoked() async throws {
        let fixture = UseCaseFixture()
        let stale = try #require(fixture.repository.stored)
        let repository = fixture.repository
        fixture.gateway.setDuringRefresh { _ = try? repository.delete() }
        await #expect(throws: AuthenticationError.notSignedIn) {
            try await fixture.refresher().refresh(replacing: stale)
        }
        #expect(fixture.gateway.refreshCalls == 1)
        #expect(fixture.repository.stored == nil)
        #expect(fixture.gateway.revokeCalls == 1)
    }

    @Test func theClaimIsMarkedSentBeforeTheRefreshTokenIsPresented() async throws {
        let fixture = UseCaseFixture()
        let stale = try #require(fixture.repository.stored)
        let repository = fixture.repository
        let seen = Locked<(owner: String, sent: Bool)?>(nil)
        fixture.gateway.setDuringRefresh { seen.withLock { $0 = repository.claim } }
        _ = try await fixture.refresher(owner: "process-1").refresh(replacing: stale)
        #expect(seen.withLock { $0?.owner } == "process-1")
        #expect(seen.withLock { $0?.sent } == true)
        #expect(fixture.repository.claim == nil, "the completed refresh drops the claim")
    }

    @Test func aClaimTakenOverBeforeItsMarkSendsNothingAndTakesTheWinnersTokens() async throws {
        let fixture = UseCaseFixture()
        let stale = try #require(fixture.repository.stored)
        let repository = fixture.repository
        let clock = fixture.clock
        let winner = fixture.gateway.makeSession(serial: 7)
        // Another process, thinking this one gone, takes the claim after it was made and before it was
        // marked, and stores its refresh.
        repository.setBeforeMark {
            _ = try? repository.claimRefresh(replacing: stale, owner: "other", lease: 15, now: clock.date + 16)
            _ = try? repository.completeRefresh(replacing: stale, with: winner, owner: "other")
        }
        let session = try await fixture.refresher(owner: "process-1").refresh(replacing: stale)
        #expect(fixture.gateway.refreshCalls == 0, "a claim lost before its mark presents nothing")
        #expect(session.accessToken.value.revealedString() == "access-7")
    }

    @Test func aRejectionAfterTakingOverASentClaimSaysTheRefreshWasInterrupted() async throws {
        let fixture = UseCaseFixture()
        let stale = try #require(fixture.repository.stored)
        let now = fixture.clock.date
        guard case .claimed = try fixture.repository.claimRefresh(replacing: stale, owner: "dead", lease: 15, now: now),
            try fixture.repository.markRefreshSent(replacing: stale, owner: "dead")
        else {
            Issue.record("the dead process's claim should be taken and marked")
            return
        }
        fixture.clock.advance(by: 16)
        fixture.gateway.setRefreshBehaviour(.reject)
        await #expect(throws: AuthenticationError.refreshInterrupted) {
            try await fixture.refresher(owner: "alive").refresh(replacing: stale)
        }
        #expect(fixture.gateway.refreshCalls == 1)
        #expect(fixture.repository.stored == nil, "the session is ended, as for any rejected refresh token")
    }

    @Test(arguments: ["process-1", "process-2"])
    func aRejectionAfterARequestThatFailedOnTheWaySaysTheRefreshWasInterrupted(nextOwner: String) async throws {
        let fixture = UseCaseFixture()
        let stale = try #require(fixture.repository.stored)
        let first = fixture.refresher(owner: "process-1")
        fixture.gateway.setRefreshBehaviour(.fail)
        await #expect(throws: AuthenticationError.temporarilyUnavailable("connection refused")) {
            try await first.refresh(replacing: stale)
        }
        // The server had rotated the token after all (the answer was lost): the next try, by the same
        // process (once its pause after the silence is over) or another, is refused, and says what
        // happened rather than "expired".
        fixture.clock.advance(by: fixture.policy.unansweredRefreshPause)
        fixture.gateway.setRefreshBehaviour(.reject)
        let next = nextOwner == "process-1" ? first : fixture.refresher(owner: nextOwner)
        await #expect(throws: AuthenticationError.refreshInterrupted) {
            try await next.refresh(replacing: stale)
        }
        #expect(fixture.repository.stored == nil)
    }

    @Test func aCompletionAfterTheClaimWasTakenOverStoresNothing() throws {
        let fixture = UseCaseFixture()
        let stale = try #require(fixture.repository.stored)
        let now = fixture.clock.date
        guard case .claimed = try fixture.repository.claimRefresh(replacing: stale, owner: "slow", lease: 15, now: now),
            try fixture.repository.markRefreshSent(replacing: stale, owner: "slow")
        else {
            Issue.record("the slow process's claim should be taken and marked")
            return
        }
        // Its lease ran out; another process took the generation over.
        guard case .takenOver = try fixture.repository.claimRefresh(
            replacing: stale, owner: "other", lease: 15, now: now + 16)
        else {
            Issue.record("the expired claim should be taken over")
            return
        }
        let late = fixture.gateway.makeSession(serial: 9)
        #expect(try fixture.repository.completeRefresh(replacing: stale, with: late, owner: "slow") == false)
        #expect(fixture.storedRefreshToken() == "refresh-0")
        #expect(fixture.repository.claim?.owner == "other")
    }

    @Test func aSharedGuardCountsEveryAccountTogether() async throws {
        let policy = AuthenticationPolicy(maxRefreshesPerWindow: 5, refreshWindow: 60, maxRefreshesPerWindowAllAccounts: 3)
        let shared = RefreshStormGuard()
        let accounts = [UseCaseFixture(), UseCaseFixture(), UseCaseFixture(), UseCaseFixture()]
        var refusals = 0
        for (index, fixture) in accounts.enumerated() {
            let refresher = RefreshSession(
                gateway: fixture.gateway, repository: fixture.repository, policy: policy, ownerID: "p",
                now: fixture.clock.now, stormGuard: shared, stormKey: "account-\(index)")
            do {
                _ = try await refresher.refresh(replacing: try #require(fixture.repository.stored))
            } catch AuthenticationError.refreshStorm(let refreshes, let window) {
                #expect(refreshes == 3 && window == 60)
                refusals += 1
            }
        }
        #expect(refusals == 1, "the fourth account's refresh is one too many for all accounts together")
        #expect(accounts.map(\.gateway.refreshCalls) == [1, 1, 1, 0])
    }

    @Test func twoSessionsOfOneAccountSharingAGuardCountTogether() async throws {
        let fixture = UseCaseFixture()
        let shared = RefreshStormGuard()
        func refresher() -> RefreshSession {
            RefreshSession(
                gateway: fixture.gateway, repository: fixture.repository, policy: fixture.policy, ownerID: UUID().uuidString,
                now: fixture.clock.now, stormGuard: shared, stormKey: "work")
        }
        for _ in 0..<fixture.policy.maxRefreshesPerWindow {
            _ = try await refresher().refresh(replacing: try #require(fixture.repository.stored))
        }
        await #expect(throws: AuthenticationError.refreshStorm(refreshes: 5, windowSeconds: 60)) {
            try await refresher().refresh(replacing: try #require(fixture.repository.stored))
        }
        #expect(fixture.gateway.refreshCalls == 5)
    }
}
