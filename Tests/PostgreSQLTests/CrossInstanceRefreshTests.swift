import Data
import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore
import TestSupport
import Testing

/// One refresh per generation across instances sharing a store on a real PostgreSQL server: leases by
/// the server's clock, a claimant on another machine seen gone by its instance lock, and nothing held
/// while the token endpoint answers. Each "instance" is a store handle (a connection) of its own.
@Suite struct CrossInstanceRefreshTests {
    let test = TestStore()
    let clock = TestClock()

    func session(_ serial: Int) throws -> Session {
        Session(
            accessToken: try AccessToken(
                value: SecretBytes(utf8: "access-\(serial)"), issuedAt: clock.date, expiresAt: clock.date + 300),
            refreshToken: try RefreshToken(value: SecretBytes(utf8: "refresh-\(serial)")),
            user: User(id: "u1", name: "Alice"), method: .password)
    }

    /// An owner id as a process on another machine writes it: no local rule can tell whether it ended.
    func foreignOwner(_ lock: PostgreSQLInstanceLock) -> String {
        "pid1@another-boot/4026531836/0a1b" + lock.ownerTag
    }

    private func isClaimed(_ claim: RefreshClaim) -> Bool {
        if case .claimed = claim { return true }
        return false
    }

    @Test func leasesAreJudgedByTheServersClockNotTheClaimants() async throws {
        let first = try session(1)
        let slow = SecureStoreSessionRepository(store: try test.open())
        let fast = SecureStoreSessionRepository(store: try test.open())
        try await slow.replace(with: first)
        // The first instance's clock is an hour behind: by its own clock its 45 s lease ran out long ago.
        let hour: TimeInterval = 3600
        let before = try #require(try test.open().sharedClock())
        #expect(isClaimed(try await slow.claimRefresh(replacing: first, owner: "slow", lease: 45, now: Date() - hour)))
        let after = try #require(try test.open().sharedClock())
        // The second instance's clock is an hour ahead: by its own clock the lease ran out too.
        guard case .heldByAnother(let until) = try await fast.claimRefresh(
            replacing: first, owner: "fast", lease: 45, now: Date() + hour)
        else {
            Issue.record("a lease is judged by the server's clock, which says it still holds")
            return
        }
        // The server's clock read on either side of the claim bounds it, however long a busy machine took.
        #expect(
            until >= before + 44 && until <= after + 46,
            "the lease runs 45 s from the server's now: \(until) against \(before)–\(after)")
    }

    @Test func aClaimWhoseLeaseRanOutByTheServersClockIsNotMarkedSent() async throws {
        let first = try session(1)
        let repository = SecureStoreSessionRepository(store: try test.open())
        try await repository.replace(with: first)
        // A claimant that stalled past its lease before sending must not send: another may have taken it.
        #expect(isClaimed(try await repository.claimRefresh(replacing: first, owner: "stalled", lease: 0.2, now: Date())))
        usleep(400_000)
        #expect(try await !repository.markRefreshSent(replacing: first, owner: "stalled"))
        // Claiming again gives a fresh lease, which can be marked.
        #expect(isClaimed(try await repository.claimRefresh(replacing: first, owner: "stalled", lease: 45, now: Date())))
        #expect(try await repository.markRefreshSent(replacing: first, owner: "stalled"))
    }

    @Test func aClaimantOnAnotherMachineIsSeenGoneOnceItsInstanceLockIsFree() async throws {
        let first = try session(1)
        let theirs = try test.open().takeInstanceLock()
        let ours = try test.open().takeInstanceLock()
        defer { ours.release() }
        let repository = SecureStoreSessionRepository(store: try test.open(), claimantIsGone: ours.isGone)
        try await repository.replace(with: first)
        let owner = foreignOwner(theirs)
        #expect(isClaimed(try await repository.claimRefresh(replacing: first, owner: owner, lease: 45, now: clock.date)))
        #expect(try await repository.markRefreshSent(replacing: first, owner: owner))
        guard case .heldByAnother = try await repository.claimRefresh(replacing: first, owner: "us", lease: 45, now: clock.date)
        else {
            Issue.record("a live instance's claim holds others back")
            return
        }
        #expect(!ours.isGone(owner), "its lock is held")
        #expect(!ours.isGone("pid1@another-boot/1/2"), "an owner without a lock key is not known to be gone")
        #expect(!ours.isGone(foreignOwner(ours)), "this instance is not gone")

        // The other instance ends: its connection, and so its lock, goes away.
        let ended = ContinuousClock.now
        theirs.release()
        var taken = false
        while !taken, ContinuousClock.now - ended < .seconds(60) {  // only against a hang
            // It had marked its request sent: the claim is taken over, with word that the token may be spent.
            if case .takenOver = try await repository.claimRefresh(replacing: first, owner: "us", lease: 45, now: clock.date) {
                taken = true
            } else {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        #expect(taken, "a claim whose instance ended is taken over, not held for its 45 s lease")
        #expect(try await !repository.markRefreshSent(replacing: first, owner: owner), "the ended claimant is fenced")
    }

    /// Its lease is an hour, by the server's clock: only seeing it ended lets the refresh finish (a
    /// timed assertion would measure the loaded test machine's scheduler, not the protocol).
    @Test(.timeLimit(.minutes(3)))
    func aClaimantThatEndedBeforeSendingIsTakenOverAndItsTokenRefreshedOnce() async throws {
        let gateway = ScriptedAuthenticationGateway(clock: clock)
        let theirs = try test.open().takeInstanceLock()
        let ours = try test.open().takeInstanceLock()
        defer { ours.release() }
        let repository = SecureStoreSessionRepository(store: try test.open(), claimantIsGone: ours.isGone)
        let stale = gateway.makeSession(serial: 0)
        try await repository.replace(with: stale)
        // Another machine's instance claimed, did not mark, and ended: its lease runs for an hour.
        guard case .claimed = try await repository.claimRefresh(
            replacing: stale, owner: foreignOwner(theirs), lease: 3600, now: clock.date)
        else {
            Issue.record("the other instance's claim should be taken")
            return
        }
        theirs.release()
        let refresher = RefreshSession(
            gateway: gateway, repository: repository, policy: AuthenticationPolicy(refreshLease: 3600), ownerID: "us",
            now: clock.now)
        let refreshed = try await refresher.refresh(replacing: stale)
        #expect(gateway.refreshCalls == 1)
        #expect(gateway.presentedRefreshTokens == ["refresh-0"])
        #expect(try await repository.load()?.refreshToken.value.revealedString() == refreshed.refreshToken.value.revealedString())
    }

    @Test func anInstanceLockLostWithItsConnectionIsTakenAgain() throws {
        let lock = try test.open().takeInstanceLock()
        defer { lock.release() }
        let watcher = try test.open().takeInstanceLock()
        defer { watcher.release() }
        let owner = foreignOwner(lock)
        let sql = try test.sql()
        // A machine that dies never closes the socket: the server is asked to end a silent session.
        #expect(lock.sessionSetting("idle_session_timeout") == "10s")
        #expect(lock.sessionSetting("tcp_user_timeout") == "10000")
        // As a network cut or a restarted server would: the lock's connection ends on the server.
        let cut = try sql.query(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND "
                + "((classid::int8 << 32) | objid::int8) = $1", [.int64(lock.key)])
        #expect(cut.rowCount == 1)
        // The periodic check (every second) takes it again.
        let start = ContinuousClock.now
        var held = false
        while !held, ContinuousClock.now - start < .seconds(20) {
            let holders = try sql.query(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND "
                    + "((classid::int8 << 32) | objid::int8) = $1", [.int64(lock.key)]).int64(0, 0)
            held = holders == 1 && !watcher.isGone(owner)
            if !held { usleep(50_000) }
        }
        #expect(held, "the instance holds its lock again")
        #expect(lock.sessionSetting("idle_session_timeout") == "10s", "asked again on the new connection")
    }

    /// A live instance whose lock connection is cut (as a server restart cuts every connection) is
    /// not taken for ended: its one-second check takes the lock again before the 3 s confirmation runs
    /// out, so a claim it marked sent and still has in flight is not presented again by another.
    @Test func aLiveInstanceWhoseLockConnectionWasCutIsNotSeenGone() throws {
        let lock = try test.open().takeInstanceLock()
        defer { lock.release() }
        let watcher = try test.open().takeInstanceLock()
        defer { watcher.release() }
        let owner = foreignOwner(lock)
        let sql = try test.sql()
        let cut = try sql.query(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND "
                + "((classid::int8 << 32) | objid::int8) = $1", [.int64(lock.key)])
        #expect(cut.rowCount == 1)
        var seenFree = false
        var seenGone = false
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(5) {
            let holders = try sql.query(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND "
                    + "((classid::int8 << 32) | objid::int8) = $1", [.int64(lock.key)]).int64(0, 0)
            seenFree = seenFree || holders == 0
            seenGone = seenGone || watcher.isGone(owner)
            usleep(20_000)
        }
        #expect(seenFree, "the cut left the lock free for a while")
        #expect(!seenGone, "a live instance was taken for ended while its lock was being taken again")
    }

    @Test func nothingOfTheStoreIsHeldWhileTheTokenEndpointAnswers() async throws {
        let gateway = ScriptedAuthenticationGateway(clock: clock)
        let repository = SecureStoreSessionRepository(store: try test.open())
        let stale = gateway.makeSession(serial: 0)
        try await repository.replace(with: stale)
        let applicationName = test.applicationName
        let seen = Locked<[String]?>(nil)
        gateway.setDuringRefresh {
            // Every connection of the store, and what it is doing while the request is out.
            let states = try? TestServer.connect().query(
                "SELECT coalesce(state, '') || CASE WHEN xact_start IS NULL THEN '' ELSE ' (transaction open)' END "
                    + "FROM pg_stat_activity WHERE application_name = $1", [.text(applicationName)])
            seen.withLock { value in
                value = states.map { result in (0..<result.rowCount).compactMap { try? result.string($0, 0) } }
            }
        }
        let refresher = RefreshSession(
            gateway: gateway, repository: repository, policy: AuthenticationPolicy(), ownerID: "one", now: clock.now)
        _ = try await refresher.refresh(replacing: stale)
        let states = try #require(seen.withLock { $0 })
        #expect(states == ["idle"], "the store's one connection is idle, no transaction open: \(states)")
    }

    @Test func instancesRacingOverManyAccountsRefreshEachExactlyOnce() async throws {
        let gateway = ScriptedAuthenticationGateway(clock: clock)
        let accounts = (0..<4).map { AccountName("user-\($0)")! }
        let setup = try test.open()
        var stale: [Session] = []
        for (index, account) in accounts.enumerated() {
            let session = gateway.makeSession(serial: 1000 + index)
            try await SecureStoreSessionRepository(store: setup, account: account).replace(with: session)
            stale.append(session)
        }
        let refreshers = try (0..<3).flatMap { instance in
            let store = try test.open()
            return accounts.indices.map { index in
                (index, RefreshSession(
                    gateway: gateway, repository: SecureStoreSessionRepository(store: store, account: accounts[index]),
                    policy: AuthenticationPolicy(), ownerID: "instance-\(instance)", now: clock.now))
            }
        }
        let results = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (index, refresher) in refreshers {
                let old = stale[index]
                group.addTask { (index, try await refresher.refresh(replacing: old).refreshToken.value.revealedString() ?? "") }
            }
            return try await group.reduce(into: [Int: Set<String>]()) { $0[$1.0, default: []].insert($1.1) }
        }
        #expect(gateway.refreshCalls == accounts.count, "one refresh per account")
        #expect(Set(gateway.presentedRefreshTokens).count == accounts.count, "no refresh token presented twice")
        for index in accounts.indices {
            #expect(results[index]?.count == 1, "every instance got the one new token of account \(index)")
            let stored = try await SecureStoreSessionRepository(store: setup, account: accounts[index]).load()
            #expect(stored?.refreshToken.value.revealedString() == results[index]?.first)
        }
    }
}
