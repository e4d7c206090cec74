import Data
import Domain
import Foundation
import SQLiteStore
import TestSupport
import Testing

@Suite struct SecureStoreSessionRepositoryTests {
    let directory = TemporaryDirectory()
    let clock = TestClock()

    func openStore() throws -> SQLiteSecureItemStore {
        try SQLiteSecureItemStore.open(
            at: directory.file("keychain.db"), keySource: .keyFile(path: directory.file("keychain.key")))
    }

    func session(_ serial: Int, lifetime: TimeInterval? = 300) throws -> Session {
        Session(
            accessToken: try AccessToken(
                value: SecretBytes(utf8: "access-\(serial)"), issuedAt: clock.date,
                expiresAt: lifetime.map { clock.date + $0 }),
            refreshToken: try RefreshToken(value: SecretBytes(utf8: "refresh-\(serial)"), expiresAt: clock.date + 86_400),
            user: User(id: "u1", name: "Alice"), method: .identityProvider("apple"))
    }

    @Test func aSessionRoundTripsThroughTheStore() async throws {
        let repository = SecureStoreSessionRepository(store: try openStore())
        #expect(try await repository.load() == nil)
        try await repository.replace(with: try session(1))
        let loaded = try #require(try await repository.load())
        #expect(loaded.accessToken.value.revealedString() == "access-1")
        #expect(loaded.refreshToken.value.revealedString() == "refresh-1")
        #expect(loaded.accessToken.expiresAt == clock.date + 300)
        #expect(loaded.refreshToken.expiresAt == clock.date + 86_400)
        #expect(loaded.user == User(id: "u1", name: "Alice"))
        #expect(loaded.method == .identityProvider("apple"))
    }

    @Test func eachTokenIsItsOwnItem() async throws {
        let store = try openStore()
        try await SecureStoreSessionRepository(store: store).replace(with: try session(1))
        #expect(try await store.findString(.genericPassword(service: "hardtack.session", account: "access-token")) == "access-1")
        #expect(try await store.findString(.genericPassword(service: "hardtack.session", account: "refresh-token")) == "refresh-1")
    }

    @Test func deleteRemovesEverything() async throws {
        let repository = SecureStoreSessionRepository(store: try openStore())
        try await repository.replace(with: try session(1))
        #expect(try await repository.delete())
        #expect(try await repository.load() == nil)
        #expect(try await !repository.delete())
    }

    @Test func aLockedStoreIsUnavailableNeverSignedOut() async throws {
        let store = try openStore()
        let repository = SecureStoreSessionRepository(store: store)
        try await repository.replace(with: try session(1))
        store.lock()
        await #expect(throws: AuthenticationError.self) { try await repository.load() }
        do {
            _ = try await repository.load()
        } catch {
            guard case .storeUnavailable = error else {
                Issue.record("expected storeUnavailable, got \(error)")
                return
            }
        }
    }

    @Test func claimsAreACompareAndSwapOnTheRefreshToken() async throws {
        let repository = SecureStoreSessionRepository(store: try openStore())
        let first = try session(1)
        try await repository.replace(with: first)
        let now = clock.date
        guard case .claimed = try await repository.claimRefresh(replacing: first, owner: "a", lease: 15, now: now) else {
            Issue.record("the first claim should succeed")
            return
        }
        guard case .heldByAnother = try await repository.claimRefresh(replacing: first, owner: "b", lease: 15, now: now)
        else {
            Issue.record("a live claim holds others back")
            return
        }
        // A claim that has run out no longer holds others back (its owner died).
        guard case .claimed = try await repository.claimRefresh(replacing: first, owner: "b", lease: 14, now: now + 16)
        else {
            Issue.record("an expired claim may be taken over")
            return
        }
        #expect(try await !repository.completeRefresh(replacing: try session(9), with: try session(2), owner: "b"))
        #expect(try await repository.completeRefresh(replacing: first, with: try session(2), owner: "b"))
        guard case .superseded(let current) = try await repository.claimRefresh(replacing: first, owner: "a", lease: 15, now: now)
        else {
            Issue.record("after a refresh the old token is superseded")
            return
        }
        #expect(current.refreshToken.value.revealedString() == "refresh-2")
    }

    /// Found by the torture bench: a process killed in the middle of a refresh held every other
    /// process back until its lease ran out (45 s). A claim whose owner is known to be gone does not.
    @Test func aClaimWhoseOwnerIsGoneHoldsNobodyBack() async throws {
        let repository = SecureStoreSessionRepository(
            store: try openStore(), claimantIsGone: { $0 == "dead" })
        let first = try session(1)
        try await repository.replace(with: first)
        let now = clock.date
        guard case .claimed = try await repository.claimRefresh(replacing: first, owner: "dead", lease: 45, now: now)
        else {
            Issue.record("the first claim should succeed")
            return
        }
        guard case .claimed = try await repository.claimRefresh(replacing: first, owner: "b", lease: 44, now: now + 1)
        else {
            Issue.record("a dead owner's claim should not hold others back")
            return
        }
        // A live owner's claim still does.
        guard
            case .heldByAnother = try await repository.claimRefresh(
                replacing: first, owner: "c", lease: 43, now: now + 2)
        else {
            Issue.record("a live claim holds others back")
            return
        }
    }

    @Test func deleteIfCurrentOnlyDeletesThatGeneration() async throws {
        let repository = SecureStoreSessionRepository(store: try openStore())
        try await repository.replace(with: try session(2))
        #expect(try await !repository.deleteIfCurrent(try session(1).refreshToken))
        #expect(try await repository.load() != nil)
        #expect(try await repository.deleteIfCurrent(try session(2).refreshToken))
        #expect(try await repository.load() == nil)
    }

    @Test func refreshUseCaseOverTheRealStoreStoresTheRotatedToken() async throws {
        let repository = SecureStoreSessionRepository(store: try openStore())
        let gateway = ScriptedAuthenticationGateway(clock: clock)
        try await repository.replace(with: gateway.makeSession(serial: 0))
        let refresher = RefreshSession(
            gateway: gateway, repository: repository, policy: AuthenticationPolicy(), ownerID: "p1", now: clock.now)
        let stale = try #require(try await repository.load())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 { group.addTask { _ = try await refresher.refresh(replacing: stale) } }
            try await group.waitForAll()
        }
        #expect(gateway.refreshCalls == 1)
        #expect(try await repository.load()?.refreshToken.value.revealedString() == "refresh-1")
    }
}
