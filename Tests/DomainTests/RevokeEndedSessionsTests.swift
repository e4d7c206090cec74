import Domain
import Foundation
import Testing
import TestSupport

/// Revoking the sessions that ended without their own keys, from the copies kept for it: only copies
/// whose session is gone, each once, an unreachable issuer asked once a pass and the rest kept for later.
@Suite struct RevokeEndedSessionsTests {
    /// Copies in memory, as a store keeps them.
    final class Copies: RevocationCopies {
        let kept = Locked<[String: RefreshToken]>([:])

        func keep(_ token: RefreshToken, for key: String) {
            kept.withLock { $0[key] = token }
        }

        func copies() async throws(AuthenticationError) -> [(key: String, token: RefreshToken)] {
            kept.withLock { $0.map { ($0.key, $0.value) } }
        }

        func remove(_ key: String, ifStill token: RefreshToken) async throws(AuthenticationError) -> Bool {
            kept.withLock { kept in
                guard let current = kept[key], current.isSameToken(as: token) else { return false }
                kept[key] = nil
                return true
            }
        }

        var keys: [String] { kept.withLock { $0.keys.sorted() } }
    }

    let fixture = UseCaseFixture()

    func token(_ value: String, expiresIn: TimeInterval? = nil) throws -> RefreshToken {
        try RefreshToken(value: SecretBytes(utf8: value), expiresAt: expiresIn.map { fixture.clock.date + $0 })
    }

    /// Sessions `live` in the catalog; copies for each of `copied`, holding `refresh-<key>`.
    func setUp(live: [String], copied: [String]) async throws -> (EndLoggedOutSessionsTests.Catalog, Copies) {
        let catalog = EndLoggedOutSessionsTests.Catalog(
            Dictionary(uniqueKeysWithValues: live.map { ($0, fixture.gateway.makeSession(serial: 1)) }))
        let copies = Copies()
        for key in copied { copies.keep(try token("refresh-" + key), for: key) }
        return (catalog, copies)
    }

    func revoke(_ catalog: some SessionCatalog, _ copies: Copies) -> RevokeEndedSessions {
        RevokeEndedSessions(gateway: fixture.gateway, catalog: catalog, copies: copies)
    }

    @Test func aPassThatIsToYieldStopsAfterItsFirstSendAndLeavesTheRestForTheNext() async throws {
        let (catalog, copies) = try await setUp(live: [], copied: ["a", "b", "c"])
        let asked = Locked(0)
        let outcome = try await revoke(catalog, copies)(
            now: fixture.clock.date, yieldingWhen: { asked.withLock { $0 += 1 }; return true })
        #expect(outcome.revoked == 1 && outcome.deferred == 2 && outcome.yielded)
        #expect(fixture.gateway.revokeCalls == 1 && copies.keys.count == 2, "one sent and removed, two kept")
        #expect(asked.withLock { $0 } == 1, "asked once: before the second send, never before the first")
        let next = try await revoke(catalog, copies)(now: fixture.clock.date, yieldingWhen: { false })
        #expect(next.revoked == 2 && next.deferred == 0 && !next.yielded && copies.keys.isEmpty)
        #expect(fixture.gateway.revokeCalls == 3, "each sent once")
    }

    @Test func aPassAtItsLimitDefersTheRestWithoutYielding() async throws {
        let (catalog, copies) = try await setUp(live: [], copied: ["a", "b"])
        let outcome = try await revoke(catalog, copies)(now: fixture.clock.date, limit: 1, yieldingWhen: { true })
        #expect(outcome.revoked == 1 && outcome.deferred == 1 && !outcome.yielded, "the limit held it back, not a yield")
    }

    @Test func onlyTheCopiesOfEndedSessionsAreRevokedAndRemoved() async throws {
        let (catalog, copies) = try await setUp(live: ["a"], copied: ["a", "b", "c"])
        let outcome = try await revoke(catalog, copies)(now: fixture.clock.date)
        #expect(outcome.revoked == 2 && outcome.deferred == 0 && outcome.unsupported == 0)
        #expect(fixture.gateway.revokedTokens.sorted() == ["refresh-b", "refresh-c"])
        #expect(copies.keys == ["a"], "a live session's copy stays")
        let again = try await revoke(catalog, copies)(now: fixture.clock.date)
        #expect(again == RevokeEndedSessions.Outcome() && fixture.gateway.revokeCalls == 2, "each is sent once")
    }

    @Test func anExpiredTokenIsRemovedWithoutAskingTheIssuer() async throws {
        let (catalog, copies) = try await setUp(live: [], copied: [])
        copies.keep(try token("refresh-old", expiresIn: -1), for: "old")
        copies.keep(try token("refresh-new", expiresIn: 3600), for: "new")
        let outcome = try await revoke(catalog, copies)(now: fixture.clock.date)
        #expect(outcome.expired == 1 && outcome.revoked == 1)
        #expect(fixture.gateway.revokedTokens == ["refresh-new"] && copies.keys.isEmpty)
    }

    @Test func anUnreachableIssuerIsAskedOnceAndEveryCopyWaitsForTheNextPass() async throws {
        let (catalog, copies) = try await setUp(live: [], copied: ["a", "b", "c"])
        fixture.gateway.setRevokeFails(true)
        let failed = try await revoke(catalog, copies)(now: fixture.clock.date)
        #expect(failed.deferred == 3 && failed.revoked == 0 && fixture.gateway.revokeCalls == 1)
        #expect(failed.lastFailure?.contains("could not be reached") == true)
        #expect(copies.keys == ["a", "b", "c"])
        fixture.gateway.setRevokeFails(false)
        let later = try await revoke(catalog, copies)(now: fixture.clock.date)
        #expect(later.revoked == 3 && copies.keys.isEmpty)
    }

    @Test func anIssuerThatRevokesNoRefreshTokensHasTheCopyRemovedAndSaysWhy() async throws {
        let (catalog, copies) = try await setUp(live: [], copied: ["a"])
        fixture.gateway.setRevokeError(.rejected(status: 400, reason: "unsupported_token_type"))
        let outcome = try await revoke(catalog, copies)(now: fixture.clock.date)
        #expect(outcome.unsupported == 1 && outcome.lastFailure?.contains("unsupported_token_type") == true)
        #expect(copies.keys.isEmpty, "asking again would get the same answer")
    }

    @Test func aRefusalOfOneTokenRemovesItsCopyAndThePassGoesOn() async throws {
        let (catalog, copies) = try await setUp(live: [], copied: ["a", "b"])
        fixture.gateway.setRevokeError(.rejected(status: 400, reason: "invalid_request: token issued to another client"))
        let outcome = try await revoke(catalog, copies)(now: fixture.clock.date)
        #expect(outcome.refused == 2 && outcome.deferred == 0 && fixture.gateway.revokeCalls == 2)
        #expect(outcome.lastFailure?.contains("HTTP 400") == true && copies.keys.isEmpty)
    }

    @Test func aRefusalOfThisClientKeepsEveryCopyUntilItIsFixed() async throws {
        let (catalog, copies) = try await setUp(live: [], copied: ["a", "b"])
        #expect(RevokeEndedSessions.refusesClient(status: 400, reason: "invalid_client: wrong secret"))
        #expect(RevokeEndedSessions.refusesClient(status: 403, reason: "forbidden"))
        #expect(!RevokeEndedSessions.refusesClient(status: 400, reason: "invalid_request"))
        fixture.gateway.setRevokeError(.rejected(status: 401, reason: "invalid_client"))
        let refused = try await revoke(catalog, copies)(now: fixture.clock.date)
        #expect(refused.deferred == 2 && fixture.gateway.revokeCalls == 1 && refused.lastFailure?.contains("invalid_client") == true)
        #expect(copies.keys == ["a", "b"], "nothing dropped unrevoked")
        fixture.gateway.setRevokeError(nil)
        #expect(try await revoke(catalog, copies)(now: fixture.clock.date).revoked == 2 && copies.keys.isEmpty)
    }

    @Test func eachPassStartsAtARandomCopySoThatOneThatAlwaysFailsBlocksNoOther() async throws {
        let (catalog, copies) = try await setUp(live: [], copied: ["a", "b", "c", "d"])
        fixture.gateway.setRevokeFails(true)
        var first = Set<String>()
        for _ in 0..<40 {
            let before = fixture.gateway.revokeCalls
            _ = try await revoke(catalog, copies)(now: fixture.clock.date)
            #expect(fixture.gateway.revokeCalls == before + 1)
        }
        // Which copy went first is not visible through a failing issuer; a succeeding one shows the order.
        fixture.gateway.setRevokeFails(false)
        for _ in 0..<40 {
            let (catalog, copies) = try await setUp(live: [], copied: ["a", "b", "c", "d"])
            let before = fixture.gateway.revokedTokens.count
            _ = try await revoke(catalog, copies)(now: fixture.clock.date, limit: 1)
            first.insert(fixture.gateway.revokedTokens[before])
        }
        #expect(first.count > 1, "the first copy sent varies: \(first)")
    }

    @Test func aLogoutRevokesOnlyWhatItEndedAndALimitHoldsTheRestBack() async throws {
        let (catalog, copies) = try await setUp(live: [], copied: ["a", "b", "c", "d"])
        let named = try await revoke(catalog, copies)(["b", "z"], now: fixture.clock.date)
        #expect(named.revoked == 1 && fixture.gateway.revokedTokens == ["refresh-b"])
        let limited = try await revoke(catalog, copies)(now: fixture.clock.date, limit: 2)
        #expect(limited.revoked == 2 && limited.deferred == 1 && copies.keys.count == 1)
    }
}
