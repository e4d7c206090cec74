import Data
import Domain
import Foundation
import SQLiteStore
import TestSupport
import Testing

/// The two phases of a claim (claimed, then sent) and a completion whose commit went unacknowledged,
/// on the SQLite store.
@Suite struct RefreshClaimPhaseTests {
    let directory = TemporaryDirectory()
    let clock = TestClock()

    func repository(claimantIsGone: @escaping @Sendable (String) -> Bool = { _ in false }) throws
        -> SecureStoreSessionRepository
    {
        let store = try SQLiteSecureItemStore.open(
            at: directory.file("keychain.db"), keySource: .keyFile(path: directory.file("keychain.key")))
        return SecureStoreSessionRepository(store: store, claimantIsGone: claimantIsGone)
    }

    func session(_ serial: Int) throws -> Session {
        Session(
            accessToken: try AccessToken(
                value: SecretBytes(utf8: "access-\(serial)"), issuedAt: clock.date, expiresAt: clock.date + 300),
            refreshToken: try RefreshToken(value: SecretBytes(utf8: "refresh-\(serial)")),
            user: User(id: "u1", name: "Alice"), method: .password)
    }

    private func isClaimed(_ claim: RefreshClaim) -> Bool {
        if case .claimed = claim { return true }
        return false
    }

    private func isTakenOver(_ claim: RefreshClaim) -> Bool {
        if case .takenOver = claim { return true }
        return false
    }

    @Test func onlyTheHolderOfTheClaimOnThatGenerationMayMarkItSent() async throws {
        let repository = try repository()
        let first = try session(1)
        try await repository.replace(with: first)
        #expect(try await !repository.markRefreshSent(replacing: first, owner: "a"), "no claim, nothing to mark")
        #expect(isClaimed(try await repository.claimRefresh(replacing: first, owner: "a", lease: 15, now: clock.date)))
        #expect(try await !repository.markRefreshSent(replacing: first, owner: "b"))
        #expect(try await !repository.markRefreshSent(replacing: try session(9), owner: "a"), "another generation")
        #expect(try await repository.markRefreshSent(replacing: first, owner: "a"))
        #expect(try await repository.markRefreshSent(replacing: first, owner: "a"), "marking twice is harmless")
        // Its lease ran out and b took the claim over, told that a's token may be spent.
        await #expect(isTakenOver(try repository.claimRefresh(replacing: first, owner: "b", lease: 15, now: clock.date + 16)))
        #expect(try await !repository.markRefreshSent(replacing: first, owner: "a"))
        #expect(try await repository.markRefreshSent(replacing: first, owner: "b"))
    }

    @Test func aGoneClaimantIsTakenOverAtOnceWhetherOrNotItSent() async throws {
        let repository = try repository(claimantIsGone: { $0.hasPrefix("dead") })
        let first = try session(1)
        try await repository.replace(with: first)
        #expect(isClaimed(try await repository.claimRefresh(replacing: first, owner: "dead-1", lease: 45, now: clock.date)))
        await #expect(
            isClaimed(try repository.claimRefresh(replacing: first, owner: "dead-2", lease: 45, now: clock.date)),
            "dead-1 sent nothing: a plain claim")
        #expect(try await repository.markRefreshSent(replacing: first, owner: "dead-2"))
        await #expect(
            isTakenOver(try repository.claimRefresh(replacing: first, owner: "alive", lease: 45, now: clock.date)),
            "dead-2 had sent: its token may be spent")
        #expect(try await !repository.markRefreshSent(replacing: first, owner: "dead-2"), "the taken-over claimant is fenced")
        guard case .heldByAnother = try await repository.claimRefresh(replacing: first, owner: "c", lease: 45, now: clock.date)
        else {
            Issue.record("a live claimant holds others back, sent or not")
            return
        }
    }

    /// A connection lost after COMMIT was sent leaves the outcome unknown; the retry reads the store
    /// instead of assuming, so a write that went through counts as stored (and the new tokens are not
    /// revoked as if someone else had changed the session).
    @Test func aCompletionRetriedAfterAnUnacknowledgedCommitFindsItStored() async throws {
        let repository = try repository()
        let first = try session(1)
        try await repository.replace(with: first)
        #expect(isClaimed(try await repository.claimRefresh(replacing: first, owner: "a", lease: 15, now: clock.date)))
        #expect(try await repository.completeRefresh(replacing: first, with: try session(2), owner: "a"))
        #expect(try await repository.completeRefresh(replacing: first, with: try session(2), owner: "a"))
        #expect(try await !repository.completeRefresh(replacing: first, with: try session(3), owner: "a"))
        #expect(try await repository.load()?.refreshToken.value.revealedString() == "refresh-2")
    }
}
