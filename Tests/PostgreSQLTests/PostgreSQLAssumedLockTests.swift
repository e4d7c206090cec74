import Data
import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore
import TestSupport
import Testing

/// A handle's write to a group it wrote last assumes the group's digest row is as its commit left it
/// and checks that on the server with its first statement (a put: in its one round trip). These tests
/// change the group in between, through another handle or through SQL, and check that nothing is built
/// on the assumption: the write runs again with a real lock, another handle's writes are kept, damage
/// is still damage, and writers of the group still wait for the digest row's lock.
@Suite struct PostgreSQLAssumedLockTests {
    private func item(_ account: String) -> ItemAttributes { .genericPassword(service: "api", account: account) }

    private func rowCount(_ test: TestStore) throws -> Int64 {
        try test.sql().query("SELECT count(*) FROM \(test.schema).items").int64(0, 0)
    }

    /// The error a write threw, or `nil` when it succeeded.
    private func failure(_ body: () throws -> Void) -> SecureStoreError? {
        do {
            try body()
            return nil
        } catch let error as SecureStoreError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test(arguments: ["put", "update", "delete"])
    func aRowDeletedBehindTheHandleBetweenItsWritesIsDamage(_ write: String) throws {
        let test = TestStore()
        let store = try test.open()
        for account in ["alice", "bob", "carol"] { try store.add(item(account), data: secret(account)) }
        try test.sql().execute("DELETE FROM \(test.schema).items WHERE id = (SELECT min(id) FROM \(test.schema).items)")
        let before = try rowCount(test)
        let error = failure {
            switch write {
            case "put": try store.add(item("dave"), data: secret("dave"))
            case "update": _ = try store.update(item("carol"), attributes: nil, data: secret("carol-2"))
            default: _ = try store.delete(item("carol"))
            }
        }
        guard case .integrityFailure = error else {
            Issue.record("a \(write) after a row was deleted through SQL answered \(String(describing: error))")
            return
        }
        #expect(try rowCount(test) == before, "the \(write) wrote nothing")
        #expect(try !store.verify().isSound)
    }

    @Test func anotherHandlesWritesBetweenThisHandlesWritesAreKept() throws {
        let test = TestStore()
        let mine = try test.open()
        let theirs = try test.open()
        try mine.add(item("a1"), data: secret("a1"))
        try mine.add(item("a2"), data: secret("a2"))
        // Each of these writes of `mine` follows one of `theirs` to the same group.
        try theirs.add(item("b1"), data: secret("b1"))
        try mine.add(item("a3"), data: secret("a3"))
        _ = try theirs.update(item("a1"), attributes: nil, data: secret("a1-theirs"))
        _ = try mine.update(item("a2"), attributes: nil, data: secret("a2-mine"))
        #expect(try theirs.delete(item("a3")) == 1)
        #expect(try mine.delete(item("b1")) == 1)
        try mine.add(item("a4"), data: secret("a4"))
        _ = try mine.update(item("a4"), attributes: nil, data: secret("a4-mine"))
        for (account, value) in [("a1", "a1-theirs"), ("a2", "a2-mine"), ("a4", "a4-mine")] {
            for handle in [mine, theirs, try test.open()] {
                #expect(try handle.find(item(account), limit: .one, returning: .data).first?.data?.revealedString() == value)
            }
        }
        for handle in [mine, theirs] {
            #expect(throws: SecureStoreError.itemNotFound) { try handle.find(item("a3"), limit: .one, returning: .data) }
            #expect(throws: SecureStoreError.itemNotFound) { try handle.find(item("b1"), limit: .one, returning: .data) }
        }
        #expect(try rowCount(test) == 3)
        #expect(try test.open().verify().isSound)
    }

    @Test func aRowAnotherHandleChangedIsNotTakenFromWhatThisHandleLeft() throws {
        let test = TestStore()
        let mine = try test.open()
        let theirs = try test.open()
        // The group's first write makes its digest row; the next ones leave rows this handle keeps.
        for account in ["a0", "a1", "a2"] { try mine.add(item(account), data: secret(account)) }
        _ = try theirs.update(item("a1"), attributes: nil, data: secret("a1-theirs"))
        // This handle sees the other's change, first in a read (a full list checks the group's rows),
        // then writes the group again, then updates and deletes the rows the other handle changed:
        // from the server, not from what this handle had left.
        #expect(try mine.find(.genericPassword(service: "api"), limit: .all, returning: .attributes).count == 3)
        try mine.add(item("a3"), data: secret("a3"))
        _ = try mine.update(item("a1"), attributes: nil, data: secret("a1-mine"))
        _ = try theirs.update(item("a2"), attributes: nil, data: secret("a2-theirs"))
        #expect(try mine.find(.genericPassword(service: "api"), limit: .all, returning: .attributes).count == 4)
        try mine.add(item("a4"), data: secret("a4"))
        #expect(try mine.delete(item("a2")) == 1)
        #expect(try theirs.find(item("a1"), limit: .one, returning: .data).first?.data?.revealedString() == "a1-mine")
        #expect(throws: SecureStoreError.itemNotFound) { try theirs.find(item("a2"), limit: .one, returning: .data) }
        #expect(try rowCount(test) == 4)
        #expect(try test.open().verify().isSound)
    }

    @Test func anAssumedLockStillWaitsForTheGroupsWriters() throws {
        let test = TestStore()
        let store = try test.open()
        try store.add(item("a1"), data: secret("a1"))
        try store.add(item("a2"), data: secret("a2"))
        // Another session holds the group's digest row, as a writer of the group does until it commits.
        let holder = try test.sql()
        try holder.execute("BEGIN; SELECT 1 FROM \(test.schema).group_digests FOR UPDATE")
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: SecureStoreError?? = nil
        let writer = Thread {
            outcome = .some(self.failure { try store.add(self.item("a3"), data: secret("a3")) })
            done.signal()
        }
        writer.start()
        var waited = false
        for _ in 0..<200 where !waited {
            waited =
                try test.sql().query(
                    "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
                    [.text(test.applicationName)]
                ).rowCount == 1
            if !waited { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(waited, "the put waited for the digest row's lock")
        #expect(done.wait(timeout: .now()) == .timedOut, "the put did not go ahead while the lock was held")
        try holder.execute("COMMIT")
        done.wait()
        #expect(outcome == .some(nil), "the put succeeded once the lock was released")
        #expect(try store.find(item("a3"), limit: .one, returning: .data).first?.data?.revealedString() == "a3")
        #expect(try test.open().verify().isSound)
    }
}
