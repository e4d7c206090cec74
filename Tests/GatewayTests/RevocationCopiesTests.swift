import Data
import Domain
import Foundation
import SQLiteStore
import TestSupport
import Testing

@testable import Gateway

/// Revocation copies in a real store: kept beside each sealed session when asked for, replaced when a
/// refresh rotates the token, and revoked once their session is gone, whichever way it ended.
@Suite(.timeLimit(.minutes(3))) struct RevocationCopiesTests {
    let directory = TemporaryDirectory()
    let clock = TestClock()

    func store() throws -> SQLiteSecureItemStore {
        try SQLiteSecureItemStore.open(at: directory.file("keychain.db"), keySource: .keyFile(path: directory.file("keychain.key")))
    }

    func session(_ tag: String, user: String = "alice") throws -> Session {
        Session(
            accessToken: try AccessToken(value: SecretBytes(utf8: "access-\(tag)"), issuedAt: clock.date, expiresAt: clock.date + 300),
            refreshToken: try RefreshToken(value: SecretBytes(utf8: "refresh-\(tag)"), expiresAt: clock.date + 86_400),
            user: User(id: user, name: user), method: .authorizationCode,
            identity: SignInIdentity(idToken: SecretBytes(utf8: "id-token-\(tag)"), sessionID: "idp-\(tag)"))
    }

    func sealed(_ store: some SecureItemStore, _ cookie: SessionCookie, copies: StoreRevocationCopies?) -> SealedSessionRepository {
        SealedSessionRepository(SecureStoreSessionRepository(store: store, account: cookie.account), cookie: cookie, copies: copies)
    }

    /// The gateway's sessions in `store`, signed in at `issuer`, keeping revocation copies when `keeping`.
    func gatewaySessions(_ store: some SecureItemStore, _ issuer: ScriptedAuthenticationGateway, keeping: Bool) -> GatewaySessions {
        GatewaySessions(
            store: store, gateway: issuer, policy: AuthenticationPolicy(), ownerID: "me", issuer: "https://login.example",
            clientID: "app", keepsCopies: keeping, claimantIsGone: { _ in false }, now: { clock.date }, onShared: {})
    }

    func copied(_ copies: StoreRevocationCopies) async throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try await copies.copies().map { ($0.key, $0.token.value.revealedString() ?? "") })
    }

    @Test func aCopyIsKeptAtSignInAndReplacedWhenARefreshRotatesTheToken() async throws {
        let store = try store()
        let copies = StoreRevocationCopies(store: store, issuer: "https://login.example", clientID: "app")
        let cookie = SessionCookie.fresh()
        let repository = sealed(store, cookie, copies: copies)
        let first = try session("1")
        try await repository.replace(with: first)
        #expect(try await copied(copies) == [cookie.sessionID: "refresh-1"])
        let expiry = try #require(try await copies.copies().first?.token.expiresAt)
        #expect(abs(expiry.timeIntervalSince(clock.date + 86_400)) < 0.01, "the expiry is kept with it")

        guard case .claimed = try await repository.claimRefresh(replacing: first, owner: "me", lease: 30, now: clock.date) else {
            Issue.record("the claim was not granted")
            return
        }
        #expect(try await repository.completeRefresh(replacing: first, with: try session("2"), owner: "me"))
        #expect(try await copied(copies) == [cookie.sessionID: "refresh-2"])

        // The old token's removal leaves the newer copy; the current one's removes it.
        #expect(try await copies.remove(cookie.sessionID, ifStill: first.refreshToken) == false)
        #expect(try await copies.remove(cookie.sessionID, ifStill: try session("2").refreshToken))
        #expect(try await copies.copies().isEmpty)
        // The store file holds no copy in the clear.
        for suffix in ["", "-wal", "-shm"] {
            let file = Data(FileBytes.read(directory.file("keychain.db" + suffix)))
            #expect(file.range(of: Data("refresh-1".utf8)) == nil && file.range(of: Data("refresh-2".utf8)) == nil, "\(suffix)")
        }
    }

    @Test func withoutCopiesNothingIsKeptBesideTheSealedSession() async throws {
        let store = try store()
        try await sealed(store, SessionCookie.fresh(), copies: nil).replace(with: try session("1"))
        #expect(try await StoreRevocationCopies(store: store, issuer: "https://login.example", clientID: "app").copies().isEmpty)
    }

    @Test func anOperatorsRevokeIsRevokedAtTheIssuerAndTheOtherUserIsNot() async throws {
        let store = try store()
        let copies = StoreRevocationCopies(store: store, issuer: "https://login.example", clientID: "app")
        let alice = SessionCookie.fresh()
        let bob = SessionCookie.fresh()
        try await sealed(store, alice, copies: copies).replace(with: try session("a", user: "alice"))
        try await sealed(store, bob, copies: copies).replace(with: try session("b", user: "bob"))
        let issuer = ScriptedAuthenticationGateway(clock: clock)
        let revoke = RevokeEndedSessions(gateway: issuer, catalog: GatewaySessionCatalog(store: store), copies: copies)

        #expect(try await revoke(now: clock.date) == RevokeEndedSessions.Outcome(), "both sessions live: nothing sent")
        #expect(try await GatewaySessionAdmin(store: store).end(user: "alice") == [alice.sessionID])
        let outcome = try await revoke(now: clock.date)
        #expect(outcome.revoked == 1 && issuer.revokedTokens == ["refresh-a"], "the plain token, not its sealed form")
        #expect(try await copied(copies) == [bob.sessionID: "refresh-b"])
        #expect(try await sealed(store, bob, copies: copies).load() != nil, "bob goes on")
    }

    @Test func anotherIssuersOrClientsCopiesAreNeverRead() async throws {
        let store = try store()
        let copy = StoreRevocationCopies(store: store, issuer: "https://old.example", clientID: "app")
            .companion(try session("1").refreshToken, for: "s1")
        try await store.addOrUpdate(copy.attributes, data: copy.data)
        #expect(try await StoreRevocationCopies(store: store, issuer: "https://login.example", clientID: "app").copies().isEmpty)
        #expect(try await StoreRevocationCopies(store: store, issuer: "https://old.example", clientID: "other").copies().isEmpty)
        #expect(try await StoreRevocationCopies(store: store, issuer: "https://old.example", clientID: "app").copies().count == 1)
    }

    /// Through the gateway's own sessions: a sign-in keeps a copy, a refresh that keeps the token leaves
    /// it, a sign-out (which revokes the token itself) removes it; an instance that keeps none still
    /// removes a copy another kept.
    @Test func aSignOutRemovesTheCopyAndARefreshThatKeepsTheTokenLeavesIt() async throws {
        let store = try store()
        let issuer = ScriptedAuthenticationGateway(clock: clock)
        let copies = StoreRevocationCopies(store: store, issuer: "https://login.example", clientID: "app")
        let keeping = gatewaySessions(store, issuer, keeping: true)
        let cookie = SessionCookie.fresh()
        let first = try session("1")
        _ = try await keeping.signIn(issued: first, cookie: cookie)
        #expect(try await copied(copies) == [cookie.sessionID: "refresh-1"])

        var sameToken = try session("2")
        sameToken.refreshToken = first.refreshToken
        let repository = keeping.repository(for: cookie)
        guard case .claimed = try await repository.claimRefresh(replacing: first, owner: "me", lease: 30, now: clock.date) else {
            Issue.record("the claim was not granted")
            return
        }
        #expect(try await repository.completeRefresh(replacing: first, with: sameToken, owner: "me"))
        #expect(try await copied(copies) == [cookie.sessionID: "refresh-1"], "the token did not change: nor does its copy")

        let result = try await gatewaySessions(store, issuer, keeping: false).signOut(cookie)
        #expect(result.revocation == .revoked && issuer.revokedTokens == ["refresh-1"])
        #expect(try await copies.copies().isEmpty, "revoked with the session: no second revocation at the sweep")
    }

    /// A back-channel logout's pass and a sweep's at once (each reads the copies, then waits for the issuer):
    /// the ended session's token is sent once, not by both.
    @Test func twoPassesAtOnceSendAnEndedSessionsTokenOnce() async throws {
        let store = try store()
        let issuer = ScriptedAuthenticationGateway(clock: clock, revokeDelay: .milliseconds(500))
        let sessions = gatewaySessions(store, issuer, keeping: true)
        let cookie = SessionCookie.fresh()
        _ = try await sessions.signIn(issued: try session("1"), cookie: cookie)
        #expect(try await GatewaySessionAdmin(store: store).end(user: "alice") == [cookie.sessionID])

        async let backChannel = sessions.revokeEnded([cookie.sessionID])
        async let sweep = sessions.revokeEnded()
        let outcomes = try await [backChannel, sweep]
        #expect(issuer.revokeCalls == 1 && issuer.revokedTokens == ["refresh-1"], "sent once")
        #expect(outcomes.map(\.revoked).sorted() == [0, 1], "the pass that came second found nothing left")
        #expect(try await sessions.copies.copies().isEmpty)
    }

    /// A sweep's pass while a back-channel logout's waits: the sweep stops after its send in flight, the
    /// logout's pass goes next, and a later pass sends the rest, each token once.
    @Test func aSweepsPassYieldsToABackChannelLogoutsAfterTheSendInFlight() async throws {
        let store = try store()
        let issuer = ScriptedAuthenticationGateway(clock: clock)
        let sessions = gatewaySessions(store, issuer, keeping: true)
        for tag in ["1", "2", "3", "4"] {
            let user = tag == "4" ? "bob" : "alice"
            _ = try await sessions.signIn(issued: try session(tag, user: user), cookie: .fresh())
        }
        let admin = GatewaySessionAdmin(store: store)
        #expect(try await admin.end(user: "alice").count == 3)
        issuer.holdRevokes()
        let sweep = Task { try await sessions.revokeEnded(yielding: true) }
        await issuer.untilRevokeCalls(1)
        // Bob's session ends by a back-channel logout while the sweep's first send is at the issuer.
        let bobs = try await admin.end(user: "bob")
        let backChannel = Task { try await sessions.revokeEnded(Set(bobs)) }
        await sessions.untilRevocationPassesWait(1)
        issuer.releaseRevokes()
        let (swept, ended) = (try await sweep.value, try await backChannel.value)
        #expect(swept.revoked == 1 && swept.deferred == 2 && swept.yielded, "the sweep stopped after its send")
        #expect(ended.revoked == 1 && !ended.yielded)
        #expect(issuer.revokedTokens.count == 2 && issuer.revokedTokens.last == "refresh-4", "bob's went next")
        let rest = try await sessions.revokeEnded(yielding: true)
        #expect(rest.revoked == 2 && !rest.yielded && issuer.revokeCalls == 4, "the rest, each sent once")
        #expect(try await sessions.copies.copies().isEmpty)
    }

    /// A pass under way when the gateway stops: the send at the issuer is answered and its copy removed, and
    /// no other send starts (the rest wait for the next sweep); a back-channel logout's pass stops so too.
    @Test func aPassStopsSendingAfterTheSendInFlightOnceTheGatewayStops() async throws {
        let store = try store()
        let issuer = ScriptedAuthenticationGateway(clock: clock)
        let sessions = gatewaySessions(store, issuer, keeping: true)
        for tag in ["1", "2", "3", "4", "5"] {
            _ = try await sessions.signIn(issued: try session(tag, user: tag < "4" ? "alice" : "bob"), cookie: .fresh())
        }
        let admin = GatewaySessionAdmin(store: store)
        let stopping = Locked(false)
        // A sweep's pass over alice's three, then a back-channel logout's over bob's two.
        for (user, yielding) in [("alice", true), ("bob", false)] {
            let ended = try await admin.end(user: user)
            issuer.holdRevokes()
            let calls = issuer.revokeCalls
            let pass = Task {
                try await sessions.revokeEnded(
                    yielding ? nil : Set(ended), yielding: yielding, stopping: { stopping.withLock { $0 } })
            }
            await issuer.untilRevokeCalls(calls + 1)
            stopping.withLock { $0 = true }
            issuer.releaseRevokes()
            let outcome = try await pass.value
            #expect(outcome.revoked == 1 && outcome.stopped && !outcome.yielded, "\(user)'s")
            #expect(issuer.revokeCalls == calls + 1, "no send after \(user)'s first")
            #expect(outcome.deferred == ended.count - 1, "the rest of \(user)'s kept for the next sweep")
            stopping.withLock { $0 = false }
        }
        #expect(try await sessions.copies.copies().count == 3, "each copy sent was removed, the others kept")
        #expect(Set(issuer.revokedTokens).count == 2, "no token sent twice")
        // A pass that begins (or got its turn) once the gateway stops sends nothing, not even a first token.
        let calls = issuer.revokeCalls
        let late = try await sessions.revokeEnded(stopping: { true })
        #expect(late.revoked == 0 && late.stopped && late.deferred == 3 && issuer.revokeCalls == calls)
    }

    /// A sweep's batch starts no pass once the gateway stops, whether before its first or after one that yielded.
    @Test func aSweepsBatchStartsNoPassOnceTheGatewayStops() async {
        var yielded = RevokeEndedSessions.Outcome()
        (yielded.revoked, yielded.yielded) = (1, true)
        let passes = Locked(0)
        let stopping = Locked(false)
        let filled = await Gateway.revokeInBatch(500, stopping: { stopping.withLock { $0 } }) { _ in
            passes.withLock { $0 += 1 }
            stopping.withLock { $0 = true }
            return yielded
        }
        #expect(!filled && passes.withLock { $0 } == 1, "no pass after the one that yielded for the stop")
        let none = await Gateway.revokeInBatch(500, stopping: { true }) { _ in
            passes.withLock { $0 += 1 }
            return yielded
        }
        #expect(!none && passes.withLock { $0 } == 1, "none at all once stopped before the first")
    }

    /// A sweep's batch goes on after a pass that yielded, with what is left of the batch, and stops after a
    /// pass that did not yield, when the batch is full, or when the store failed.
    @Test func aSweepsBatchGoesOnAfterAYieldedPassOnly() async {
        func outcome(_ revoked: Int, yielded: Bool) -> RevokeEndedSessions.Outcome {
            var outcome = RevokeEndedSessions.Outcome()
            (outcome.revoked, outcome.yielded) = (revoked, yielded)
            return outcome
        }
        func run(_ batch: Int, _ script: [RevokeEndedSessions.Outcome?]) async -> (filled: Bool, limits: [Int]) {
            let limits = Locked<[Int]>([])
            let filled = await Gateway.revokeInBatch(batch) { limit in
                let index = limits.withLock { $0.append(limit); return $0.count - 1 }
                return index < script.count ? script[index] : outcome(0, yielded: false)
            }
            return (filled, limits.withLock { $0 })
        }
        let afterYield = await run(
            500, [outcome(1, yielded: true), outcome(3, yielded: false), outcome(9, yielded: false)])
        #expect(!afterYield.filled && afterYield.limits == [500, 499], "once more after the yield, then done")
        let full = await run(3, [outcome(1, yielded: true), outcome(2, yielded: true), outcome(5, yielded: true)])
        #expect(full.filled && full.limits == [3, 2], "stops once the batch is full")
        let failed = await run(500, [outcome(1, yielded: true), nil, outcome(5, yielded: false)])
        #expect(!failed.filled && failed.limits == [500, 499], "stops when the store failed")
        let plain = await run(500, [outcome(500, yielded: false)])
        #expect(plain.filled && plain.limits == [500])
    }

    @Test func theCatalogCountsEverySessionThatIsThereReadableOrNotAndNoLeftovers() async throws {
        let store = try store()
        let readable = SessionCookie.fresh()
        try await sealed(store, readable, copies: nil).replace(with: try session("1"))
        // A session whose record this version cannot read (a newer kind of sign-in): still there.
        let unreadable = SessionCookie.fresh()
        try await sealed(store, unreadable, copies: nil).replace(with: try session("2"))
        let record = ItemAttributes.genericPassword(
            service: SecureStoreSessionRepository.service(for: unreadable.account), account: "session")
        var stored = try #require(try await store.find(record, returning: .data).first?.data?.revealedString())
        stored = stored.replacingOccurrences(of: "\"authorizationCode\"", with: "\"fromTheFuture\"")
        try await store.update(record, data: SecretBytes(utf8: stored))
        // Only a refresh claim left behind: no session.
        let leftover = SessionCookie.fresh()
        try await store.add(
            .genericPassword(
                service: SecureStoreSessionRepository.service(for: leftover.account), account: "refresh-claim",
                label: "Hardtack session"),
            data: SecretBytes(utf8: "{}"))
        let keys = try await GatewaySessionCatalog(store: store).keys()
        #expect(keys == [readable.sessionID, unreadable.sessionID])
        #expect(try await GatewaySessionCatalog(store: store).sessions().map(\.key) == [readable.sessionID])
    }
}
