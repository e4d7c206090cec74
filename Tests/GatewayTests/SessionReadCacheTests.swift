import Data
import Domain
import Foundation
import SQLiteStore
import Synchronization
import TestSupport
import Testing

@testable import Gateway

/// Sessions kept in memory between calls while the store has not changed: a second read with nothing
/// committed comes from memory; any commit, by this handle or another connection (another process, an
/// operator's command), sends the next read to the store, so that a sign-out or a refresh anywhere holds
/// at the next call; a forged cookie naming a kept session gets nothing from memory.
@Suite struct SessionReadCacheTests {
    let directory = TemporaryDirectory()
    let clock = TestClock()

    func store() throws -> SQLiteSecureItemStore {
        try SQLiteSecureItemStore.open(at: directory.file("keychain.db"), keySource: .keyFile(path: directory.file("keychain.key")))
    }

    func session(_ tag: String) throws -> Session { try .tagged(tag, at: clock.date) }

    /// Counts where each read came from.
    final class Reads: Sendable {
        let memory = Atomic(0)
        let store = Atomic(0)
        func count(_ fromMemory: Bool) {
            if fromMemory { memory.add(1, ordering: .relaxed) } else { store.add(1, ordering: .relaxed) }
        }
        var counts: [Int] { [memory.load(ordering: .relaxed), store.load(ordering: .relaxed)] }
    }

    func repository(_ store: any SecureItemStore, _ cookie: SessionCookie, _ cache: SessionReadCache?) -> SealedSessionRepository {
        SealedSessionRepository(SecureStoreSessionRepository(store: store, account: cookie.account), cookie: cookie, reads: cache)
    }

    @Test func aSecondReadWithNothingCommittedComesFromMemory() async throws {
        let store = try store()
        let reads = Reads()
        let cache = SessionReadCache(store: store, capacity: 10, counted: reads.count)
        let cookie = SessionCookie.fresh()
        try await repository(store, cookie, cache).replace(with: try session("1"))
        let first = try #require(try await repository(store, cookie, cache).load())
        let second = try #require(try await repository(store, cookie, cache).load())
        #expect(first.accessToken.value == SecretBytes(utf8: "access-1"))
        #expect(second.refreshToken.value == SecretBytes(utf8: "refresh-1") && second.user?.id == "alice")
        #expect(reads.counts == [1, 1])
    }

    @Test func anotherConnectionsSignOutOrRefreshHoldsAtTheNextRead() async throws {
        let store = try store()
        let elsewhere = try self.store()  // another connection to the file, as another process has
        let reads = Reads()
        let cache = SessionReadCache(store: store, capacity: 10, counted: reads.count)
        let cookie = SessionCookie.fresh()
        try await repository(store, cookie, cache).replace(with: try session("1"))
        _ = try await repository(store, cookie, cache).load()
        _ = try await repository(store, cookie, cache).load()
        #expect(reads.counts == [1, 1])

        // A refresh by another instance: the next read has its tokens, from the store.
        try await repository(elsewhere, cookie, nil).replace(with: try session("2"))
        #expect(try await repository(store, cookie, cache).load()?.accessToken.value == SecretBytes(utf8: "access-2"))
        #expect(reads.counts == [1, 2])
        #expect(try await repository(store, cookie, cache).load()?.accessToken.value == SecretBytes(utf8: "access-2"))
        #expect(reads.counts == [2, 2])

        // A sign-out elsewhere: no session at the next read.
        #expect(try await repository(elsewhere, cookie, nil).delete())
        #expect(try await repository(store, cookie, cache).load() == nil)
        #expect(try await repository(store, cookie, cache).load() == nil)
        #expect(reads.counts == [2, 4])
    }

    @Test func aCommitBetweenTheReadAndTheNextMarkIsNeverMissed() async throws {
        let base = try store()
        let elsewhere = try self.store()
        let cookie = SessionCookie.fresh()
        try await repository(base, cookie, nil).replace(with: try session("1"))
        // Another connection signs the session out just after its read, before the next mark is asked: a
        // cache that took its mark after the read, rather than before, would keep the session under the
        // later mark and serve it again.
        final class Flags: Sendable {
            let foundSinceMark = Atomic(false)
            let signedOutElsewhere = Atomic(false)
        }
        let flags = Flags()
        let service = SecureStoreSessionRepository.service(for: cookie.account)
        let store = PortOnlyStore(
            base: base, onFind: { flags.foundSinceMark.store(true, ordering: .relaxed) },
            onMark: {
                guard flags.foundSinceMark.exchange(false, ordering: .relaxed),
                    !flags.signedOutElsewhere.exchange(true, ordering: .relaxed)
                else { return }
                _ = try? elsewhere.delete(.genericPassword(service: service))
            })
        let cache = SessionReadCache(store: store, capacity: 10)
        #expect(try await repository(store, cookie, cache).load()?.accessToken.value == SecretBytes(utf8: "access-1"))
        #expect(try await repository(store, cookie, cache).load() == nil)
        let signedOut = flags.signedOutElsewhere.load(ordering: .relaxed)
        #expect(signedOut, "the sign-out came between a read and a mark")
    }

    @Test func aRequestUsesAMarkReadAfterItArrivedAndNeverOneReadBefore() async throws {
        // The requests a server read at once share a mark: one read after a request was read whole tells of
        // every commit that ended before it arrived. One read before it does not, however recent: a sign-out
        // elsewhere between that read and the request must hold.
        let store = try store()
        let elsewhere = try self.store()
        final class Marks: Sendable {
            let asked = Atomic(0)
        }
        let marks = Marks()
        let counting = PortOnlyStore(base: store, onFind: {}, onMark: { marks.asked.add(1, ordering: .relaxed) })
        let cache = SessionReadCache(store: counting, capacity: 10)
        let cookie = SessionCookie.fresh()
        func forRequest(received: ContinuousClock.Instant?) -> SealedSessionRepository {
            SealedSessionRepository(
                SecureStoreSessionRepository(store: counting, account: cookie.account), cookie: cookie, reads: cache,
                received: received)
        }
        try await forRequest(received: nil).replace(with: try session("1"))
        let arrived = ContinuousClock.now
        _ = try await forRequest(received: arrived).load()
        let asked = marks.asked.load(ordering: .relaxed)
        // Another request of the same batch (it arrived before that mark was read): no mark read for it.
        #expect(try await forRequest(received: arrived).load()?.accessToken.value == SecretBytes(utf8: "access-1"))
        #expect(marks.asked.load(ordering: .relaxed) == asked)
        // A sign-out elsewhere, then a request that arrives after it: it reads a mark, and finds no session.
        #expect(try await repository(elsewhere, cookie, nil).delete())
        #expect(try await forRequest(received: .now).load() == nil)
        #expect(marks.asked.load(ordering: .relaxed) == asked + 1)
    }

    @Test func aSignOutThroughTheGatewaysSessionsDropsTheKeptSessionAtOnce() async throws {
        let store = try store()
        let reads = Reads()
        let cache = SessionReadCache(store: store, capacity: 10, counted: reads.count)
        let cookie = SessionCookie.fresh()
        try await repository(store, cookie, cache).replace(with: try session("1"))
        _ = try await repository(store, cookie, cache).load()
        cache.forget(cookie.sessionID)
        _ = try await repository(store, cookie, cache).load()
        _ = try await repository(store, cookie, cache).load()
        cache.forgetAll()
        _ = try await repository(store, cookie, cache).load()
        #expect(reads.counts == [1, 3])
    }

    @Test func aCommitOfThisHandleAboutAnotherSessionAlsoSendsTheNextReadToTheStore() async throws {
        let store = try store()
        let reads = Reads()
        let cache = SessionReadCache(store: store, capacity: 10, counted: reads.count)
        let (alice, bob) = (SessionCookie.fresh(), SessionCookie.fresh())
        try await repository(store, alice, cache).replace(with: try session("a"))
        _ = try await repository(store, alice, cache).load()
        try await repository(store, bob, cache).replace(with: try session("b"))
        #expect(try await repository(store, alice, cache).load()?.accessToken.value == SecretBytes(utf8: "access-a"))
        #expect(reads.counts == [0, 2])
    }

    @Test func aForgedCookieNamingAKeptSessionGetsNothing() async throws {
        let store = try store()
        let reads = Reads()
        let cache = SessionReadCache(store: store, capacity: 10, counted: reads.count)
        let cookie = SessionCookie.fresh()
        try await repository(store, cookie, cache).replace(with: try session("1"))
        _ = try #require(try await repository(store, cookie, cache).load())
        let forged = SessionCookie(id: cookie.id, secret: SecretBytes(GatewaySeal.random(32)))
        #expect(try await repository(store, forged, cache).load() == nil)
        #expect(reads.counts == [0, 2])
        // The real cookie's session is still kept (the forged read committed nothing).
        #expect(try await repository(store, cookie, cache).load()?.refreshToken.value == SecretBytes(utf8: "refresh-1"))
        #expect(reads.counts == [1, 2])
    }

    @Test func aLockedStoreIsNotAnsweredFromMemory() async throws {
        let store = try store()
        let cache = SessionReadCache(store: store, capacity: 10)
        let cookie = SessionCookie.fresh()
        try await repository(store, cookie, cache).replace(with: try session("1"))
        _ = try #require(try await repository(store, cookie, cache).load())
        store.lock()
        await #expect(throws: AuthenticationError.self) { try await repository(store, cookie, cache).load() }
    }

    @Test func aStoreWithoutMarksIsReadEveryTime() async throws {
        let store = PortOnlyStore(base: try store())
        let reads = Reads()
        let cache = SessionReadCache(store: store, capacity: 10, counted: reads.count)
        let cookie = SessionCookie.fresh()
        try await repository(store, cookie, cache).replace(with: try session("1"))
        for _ in 0..<3 { _ = try #require(try await repository(store, cookie, cache).load()) }
        #expect(reads.counts == [0, 3])
    }

    @Test func pastItsCapacityTheCacheStartsOverAndStillAnswersRight() async throws {
        let store = try store()
        let reads = Reads()
        let cache = SessionReadCache(store: store, capacity: 2, counted: reads.count)
        let cookies = (0..<3).map { _ in SessionCookie.fresh() }
        for (index, cookie) in cookies.enumerated() { try await repository(store, cookie, cache).replace(with: try session("\(index)")) }
        for (index, cookie) in cookies.enumerated() {
            #expect(try await repository(store, cookie, cache).load()?.accessToken.value == SecretBytes(utf8: "access-\(index)"))
        }
        // The third emptied the two kept before it: only it is still kept.
        #expect(try await repository(store, cookies[2], cache).load() != nil)
        #expect(try await repository(store, cookies[0], cache).load()?.accessToken.value == SecretBytes(utf8: "access-0"))
        #expect(reads.counts == [1, 4])
    }
}
