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
        let raw = try fixture.raw()
        _ = try raw.query("BEGIN IMMEDIATE")

        let started = ContinuousClock.now
        #expect(throws: SecureStoreError.self) {
            try connection.withoutWaiting { () throws(SecureStoreError) in try connection.beginImmediate() }
        }
        #expect(ContinuousClock.now - started < .seconds(1), "the busy timeout is 10 s")

        // Outside it, the handler waits again: the lock let go of after 200 ms is taken.
        let released = Task.detached {
            try await Task.sleep(for: .milliseconds(200))
            _ = try raw.query("COMMIT")
        }
        let waitStarted = ContinuousClock.now
        try connection.beginImmediate()
        #expect(ContinuousClock.now - waitStarted >= .milliseconds(150))
        try connection.rollback()
        try await released.value
        // The store's own mark, unhurried, still answers.
        #expect(store.changeMark(waiting: false) != nil)
    }
}
