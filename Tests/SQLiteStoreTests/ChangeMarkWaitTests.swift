import Data
import Domain
import Foundation
import RawSQLite
import StoreCore
import TestSupport
import Testing

@testable import SQLiteStore

/// What the change mark without waiting relies on: a connection's busy handler, which waits out the busy
/// timeout for another connection's lock, refuses at once inside `withoutWaiting` (and waits again after).
/// (A lock a WAL read must wait for, held while another process recovers the WAL, cannot be made from SQL;
/// a write lock exercises the same handler.)
@Suite struct ChangeMarkWaitTests {
    let fixture = StoreFixture()

    @Test func withoutWaitingAnotherConnectionsLockIsBusyAtOnceAndWaitedForAfter() async throws {
        let store = try fixture.open()
        try await store.add(.genericPassword(service: "svc", account: "a"), data: SecretBytes(utf8: "one"))
        let connection = try SQLiteConnection(path: fixture.path)
        connection.setBusyTimeout(milliseconds: 10_000)
        // Another connection, on a thread of its own (not one of the test pool's, which the wait below
        // blocks), takes the write lock, and lets it go 200 ms after it is told to.
        let (locked, go, released) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let path = fixture.path
        Thread.detachNewThread {
            defer { released.signal() }
            guard let raw = try? RawDatabase(path: path), (try? raw.query("BEGIN IMMEDIATE")) != nil else {
                locked.signal()
                return
            }
            locked.signal()
            go.wait()
            usleep(200_000)
            _ = try? raw.query("COMMIT")
        }
        locked.wait()

        let started = ContinuousClock.now
        #expect(throws: SecureStoreError.self) {
            try connection.withoutWaiting { () throws(SecureStoreError) in try connection.beginImmediate() }
        }
        #expect(ContinuousClock.now - started < .seconds(1), "the busy timeout is 10 s")

        // Outside it, the handler waits again: the lock let go of after 200 ms is taken.
        let waitStarted = ContinuousClock.now
        go.signal()
        try connection.beginImmediate()
        #expect(ContinuousClock.now - waitStarted >= .milliseconds(150))
        try connection.rollback()
        released.wait()
        // The store's own mark, unhurried, still answers.
        #expect(store.changeMark(waiting: false) != nil)
    }
}
