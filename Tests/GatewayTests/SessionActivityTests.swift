import Data
import Domain
import Foundation
import SQLiteStore
import TestSupport
import Testing

@testable import Gateway

/// The idle timeout's record of use in a real store: written at most once per interval, and read only
/// when what this process wrote or read of it does not already show the session in use.
@Suite struct SessionActivityTests {
    let directory = TemporaryDirectory()
    let clock = TestClock()

    func store() throws -> SQLiteSecureItemStore {
        try SQLiteSecureItemStore.open(at: directory.file("keychain.db"), keySource: .keyFile(path: directory.file("keychain.key")))
    }

    func recordItem(_ cookie: SessionCookie, _ store: SQLiteSecureItemStore) -> ItemAttributes {
        .genericPassword(
            service: SecureStoreSessionRepository.service(for: cookie.account), account: "last-used",
            accessGroup: store.accessGroups.first)
    }

    /// Whether the store holds a record of use of `cookie`'s session.
    func hasRecord(_ cookie: SessionCookie, _ store: SQLiteSecureItemStore) async throws -> Bool {
        do throws(SecureStoreError) {
            return try await !store.find(recordItem(cookie, store), limit: .one, returning: .data).isEmpty
        } catch .itemNotFound {
            return false
        }
    }

    @Test func aUseRecordedHereSparesTheReadUntilItIsAsOldAsTheTimeout() async throws {
        let store = try store()
        let activity = SessionActivity(store: store, now: clock.now, interval: 60)
        let cookie = SessionCookie.fresh()
        let first = await activity.lastUse(cookie, timeout: 600)
        #expect(first.at == nil, "nothing recorded yet")
        await activity.record(cookie, after: first)
        let recorded = try #require(await activity.lastUse(cookie, timeout: 600).at)

        // The store's record goes behind the process's back: within the timeout it is not read.
        try await store.delete(recordItem(cookie, store))
        clock.advance(by: 599)
        #expect(await activity.lastUse(cookie, timeout: 600).at == recorded)
        #expect(!activity.isIdle(await activity.lastUse(cookie, timeout: 600), timeout: 600))

        // Past the timeout the store is read again; it holds nothing later, so the session is idle.
        clock.advance(by: 2)
        let late = await activity.lastUse(cookie, timeout: 600)
        #expect(late.at == recorded && activity.isIdle(late, timeout: 600))
    }

    @Test func anotherInstancesLaterRecordWinsOnceTheStoreIsRead() async throws {
        let store = try store()
        let here = SessionActivity(store: store, now: clock.now, interval: 60)
        let there = SessionActivity(store: store, now: clock.now, interval: 60)
        let cookie = SessionCookie.fresh()
        await here.record(cookie, after: await here.lastUse(cookie, timeout: 600))
        clock.advance(by: 500)
        await there.record(cookie, after: await there.lastUse(cookie, timeout: 600))
        let thereUse = try #require(await there.lastUse(cookie, timeout: 600).at)
        clock.advance(by: 200)
        // Here, its own record is 700 s old: it reads the store, where the other instance's is 200 s old.
        let use = await here.lastUse(cookie, timeout: 600)
        #expect(use.at == thereUse && !here.isIdle(use, timeout: 600))
    }

    @Test func aBusySessionWritesItsRecordOncePerInterval() async throws {
        let store = try store()
        let activity = SessionActivity(store: store, now: clock.now, interval: 60)
        let cookie = SessionCookie.fresh()
        await activity.record(cookie, after: await activity.lastUse(cookie, timeout: 600))
        let firstWrite = try #require(try await store.find(recordItem(cookie, store), limit: .one, returning: .data).first?.data)
        clock.advance(by: 30)
        await activity.record(cookie, after: await activity.lastUse(cookie, timeout: 600))
        let unchanged = try #require(try await store.find(recordItem(cookie, store), limit: .one, returning: .data).first?.data)
        #expect(unchanged.revealedString() == firstWrite.revealedString(), "30 s later: not written again")
        clock.advance(by: 31)
        await activity.record(cookie, after: await activity.lastUse(cookie, timeout: 600))
        let rewritten = try #require(try await store.find(recordItem(cookie, store), limit: .one, returning: .data).first?.data)
        #expect(rewritten.revealedString() != firstWrite.revealedString(), "61 s later: written again")
    }

    @Test func aRecordAnotherProcessWroteIsReadOnceNotAtEveryCall() async throws {
        let store = try store()
        let there = SessionActivity(store: store, now: clock.now, interval: 60)
        let cookie = SessionCookie.fresh()
        await there.record(cookie, after: await there.lastUse(cookie, timeout: 600))
        let recorded = try #require(await there.lastUse(cookie, timeout: 600).at)

        // A process that wrote nothing (restarted, or another instance) reads the store once...
        let here = SessionActivity(store: store, now: clock.now, interval: 60)
        clock.advance(by: 10)
        let use = await here.lastUse(cookie, timeout: 600)
        #expect(use.at == recorded)
        // ...and not again while that record shows the session in use: the record going behind its back
        // changes nothing for it, and it does not write within the interval either.
        try await store.delete(recordItem(cookie, store))
        clock.advance(by: 30)
        let later = await here.lastUse(cookie, timeout: 600)
        #expect(later.at == recorded)
        await here.record(cookie, after: later)
        #expect(try await !hasRecord(cookie, store), "not written")
        // Past the interval it writes its own.
        clock.advance(by: 25)
        await here.record(cookie, after: await here.lastUse(cookie, timeout: 600))
        #expect(try await hasRecord(cookie, store))
    }
}
