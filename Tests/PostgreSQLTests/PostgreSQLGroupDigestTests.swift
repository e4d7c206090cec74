import Data
import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore
import Synchronization
import TestSupport
import Testing

/// One rows digest per access group: writers of different groups do not wait for each other, writers
/// of one group still do, and every change made behind the store's back (a row deleted or moved to
/// another group, a group's digest row deleted) is still damage, on read and in `verify`.
@Suite(.serialized) struct PostgreSQLGroupDigestTests {
    /// Runs `body` on a thread of its own; its answer is read from the returned outcome.
    private func start(_ body: @escaping @Sendable () throws(SecureStoreError) -> Void) -> (Thread, Outcome) {
        let outcome = Outcome()
        let thread = Thread {
            do throws(SecureStoreError) {
                try body()
                outcome.set(.success(()))
            } catch {
                outcome.set(.failure(error))
            }
        }
        thread.start()
        return (thread, outcome)
    }

    /// How many of the test's store connections wait for a lock now.
    private func lockWaiters(_ test: TestStore) throws -> Int {
        try test.sql().query(
            "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
            [.text(test.applicationName)]
        ).rowCount
    }

    @Test func writersOfDifferentGroupsDoNotWaitForEachOther() throws {
        let test = TestStore()
        let tenantA = try test.open(groups: ["tenant-a"])
        let tenantB = try test.open(groups: ["tenant-b"])
        try tenantB.add(.genericPassword(service: "warm", account: "b"), data: secret("b"))
        let release = DispatchSemaphore(value: 0)
        let inside = DispatchSemaphore(value: 0)
        // Tenant A's transaction holds its group's digest row until released.
        let (holder, held) = start { () throws(SecureStoreError) in
            do {
                try tenantA.transaction { transaction in
                    try transaction.add(.genericPassword(service: "api", account: "a1"), data: secret("a1"))
                    inside.signal()
                    release.wait()
                }
            } catch let error as SecureStoreError {
                throw error
            } catch {
                throw .storage(.store("\(error)", kind: .other))
            }
        }
        inside.wait()
        // Meanwhile tenant B writes, updates and deletes: none of it waits for tenant A.
        try tenantB.add(.genericPassword(service: "api", account: "b1"), data: secret("b1"))
        try tenantB.update(.genericPassword(service: "api", account: "b1"), attributes: nil, data: secret("b2"))
        #expect(try tenantB.delete(.genericPassword(service: "warm", account: "b")) == 1)
        #expect(try lockWaiters(test) == 0)
        #expect(held.result == nil, "tenant A's transaction is still open")
        release.signal()
        while !holder.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        #expect(throws: Never.self) { try held.result?.get() }
        #expect(try tenantA.find(.genericPassword(service: "api", account: "a1"), limit: .one, returning: .data)
            .first?.data?.revealedString() == "a1")
        #expect(try tenantB.find(.genericPassword(service: "api"), limit: .all, returning: .data)
            .first?.data?.revealedString() == "b2")
        #expect(try tenantA.verify().isSound)
    }

    @Test func writersOfOneGroupStillWaitForEachOther() throws {
        let test = TestStore()
        let first = try test.open(groups: ["tenant-a"])
        let second = try test.open(groups: ["tenant-a"])
        let release = DispatchSemaphore(value: 0)
        let inside = DispatchSemaphore(value: 0)
        let (holder, _) = start { () throws(SecureStoreError) in
            do {
                try first.transaction { transaction in
                    try transaction.add(.genericPassword(service: "api", account: "one"), data: secret("1"))
                    inside.signal()
                    release.wait()
                }
            } catch {
                throw .storage(.store("\(error)", kind: .other))
            }
        }
        inside.wait()
        let (waiter, waited) = start { () throws(SecureStoreError) in
            try second.add(.genericPassword(service: "api", account: "two"), data: secret("2"))
        }
        // Bounded at 60 s only against a hang (and by the writer's end, its lock timeout): on a busy machine the
        // writer may take seconds to reach its wait.
        let deadline = Date() + 60
        var waiting = 0
        while waiting == 0, !waiter.isFinished, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
            waiting = try lockWaiters(test)
        }
        #expect(waiting == 1, "the second writer of the group waits for the first (\(waiting) sessions waited)")
        #expect(waited.result == nil)
        release.signal()
        while !holder.isFinished || !waiter.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        #expect(throws: Never.self) { try waited.result?.get() }
        #expect(try second.find(.genericPassword(service: "api"), limit: .all, returning: .attributes).count == 2)
    }

    @Test func anotherGroupsWritesLeaveAGroupsCounterAlone() throws {
        let test = TestStore()
        let tenantA = try test.open(groups: ["tenant-a"])
        let tenantB = try test.open(groups: ["tenant-b"])
        try tenantA.add(.genericPassword(service: "api", account: "alice"), data: secret("a"))
        try tenantB.add(.genericPassword(service: "api", account: "bob"), data: secret("b"))
        let sql = try test.sql()
        // Tenant A's digest row: the group of the oldest row.
        let stateOfA =
            "SELECT version::text || '/' || xmin::text FROM \(test.schema).group_digests "
            + "WHERE grp = (SELECT grp FROM \(test.schema).items ORDER BY id LIMIT 1)"
        let before = try sql.query(stateOfA).string(0, 0)
        try tenantB.add(.genericPassword(service: "api", account: "carol"), data: secret("c"))
        try tenantB.update(.genericPassword(service: "api", account: "bob"), attributes: nil, data: secret("b2"))
        #expect(try tenantB.delete(.genericPassword(service: "api", account: "carol")) == 1)
        // What tenant A's handles compare to see another connection's change did not move, so they
        // read none of the rows again.
        #expect(try sql.query(stateOfA).string(0, 0) == before)
        try tenantA.update(.genericPassword(service: "api", account: "alice"), attributes: nil, data: secret("a2"))
        #expect(try sql.query(stateOfA).string(0, 0) != before, "a write of the group moves it")
    }

    @Test func aRowMovedToAnotherGroupIsDamageInBothGroups() throws {
        let test = TestStore()
        let tenantA = try test.open(groups: ["tenant-a"])
        let tenantB = try test.open(groups: ["tenant-b"])
        try tenantA.add(.genericPassword(service: "api", account: "alice"), data: secret("a"))
        try tenantB.add(.genericPassword(service: "api", account: "bob"), data: secret("b"))
        // Each handle has checked its group's rows once.
        #expect(throws: SecureStoreError.itemNotFound) {
            try tenantA.find(.genericPassword(service: "api", account: "nobody"), limit: .one, returning: .data)
        }
        #expect(throws: SecureStoreError.itemNotFound) {
            try tenantB.find(.genericPassword(service: "api", account: "nobody"), limit: .one, returning: .data)
        }
        let items = "\(test.schema).items"
        try test.sql().execute(
            "UPDATE \(items) SET grp = (SELECT grp FROM \(items) ORDER BY id DESC LIMIT 1) "
                + "WHERE id = (SELECT min(id) FROM \(items))")
        for (store, account) in [(tenantA, "alice"), (tenantB, "nobody")] {
            do {
                _ = try store.find(.genericPassword(service: "api", account: account), limit: .one, returning: .data)
                Issue.record("a moved row went unnoticed")
            } catch {
                #expect(error.isIntegrityFailure, "\(error)")
            }
        }
        #expect(try !tenantA.verify().isSound)
        // A new handle sees it too.
        #expect(throws: SecureStoreError.self) {
            try test.open(groups: ["tenant-b"]).add(.genericPassword(service: "x", account: "y"), data: secret("z"))
        }
    }

    @Test func aDeletedGroupDigestRowIsDamage() throws {
        let test = TestStore()
        let tenantA = try test.open(groups: ["tenant-a"])
        let tenantB = try test.open(groups: ["tenant-b"])
        try tenantA.add(.genericPassword(service: "api", account: "alice"), data: secret("a"))
        try tenantB.add(.genericPassword(service: "api", account: "bob"), data: secret("b"))
        let digests = "\(test.schema).group_digests"
        let sql = try test.sql()
        // Tenant A's digest row (the group of the oldest row), its rows left.
        try sql.execute(
            "DELETE FROM \(digests) WHERE grp = (SELECT grp FROM \(test.schema).items ORDER BY id LIMIT 1)")
        do {
            _ = try test.open(groups: ["tenant-a"]).find(
                .genericPassword(service: "api", account: "nobody"), limit: .one, returning: .data)
            Issue.record("a deleted digest row went unnoticed")
        } catch {
            #expect((error as? SecureStoreError)?.isIntegrityFailure == true, "\(error)")
        }
        #expect(try !tenantB.verify().isSound)
        // Its rows deleted too: the group looks never written, but the registry says it was.
        try sql.execute(
            "DELETE FROM \(test.schema).items WHERE grp NOT IN (SELECT grp FROM \(digests))")
        #expect(throws: SecureStoreError.self) {
            try test.open(groups: ["tenant-a"]).find(
                .genericPassword(service: "api", account: "alice"), limit: .one, returning: .data)
        }
        #expect(throws: SecureStoreError.self) {
            try test.open(groups: ["tenant-a"]).add(.genericPassword(service: "api", account: "new"), data: secret("n"))
        }
        #expect(try !tenantB.verify().isSound)
    }

    @Test func aNewGroupAmongManyWritersGetsOneDigestRow() throws {
        let test = TestStore()
        _ = try test.open(groups: ["first"])
        let stores = try (0..<4).map { _ in try test.open(groups: ["shared"]) }
        let threads = stores.enumerated().map { index, store in
            start { () throws(SecureStoreError) in
                try store.add(.genericPassword(service: "api", account: "user\(index)"), data: secret("s\(index)"))
            }
        }
        while threads.contains(where: { !$0.0.isFinished }) { Thread.sleep(forTimeInterval: 0.01) }
        for (_, outcome) in threads { #expect(throws: Never.self) { try outcome.result?.get() } }
        let rows = try test.sql().query("SELECT count(*) FROM \(test.schema).group_digests").int64(0, 0)
        #expect(rows == 1)
        #expect(try stores[0].find(.genericPassword(service: "api"), limit: .all, returning: .attributes).count == 4)
        #expect(try stores[0].verify().isSound)
    }
}

/// What a writer thread came to: `nil` while it runs.
private final class Outcome: Sendable {
    private let value = Mutex<Result<Void, SecureStoreError>?>(nil)
    /// The answer, once the thread ended.
    var result: Result<Void, SecureStoreError>? { value.withLock { $0 } }
    func set(_ result: Result<Void, SecureStoreError>) { value.withLock { $0 = result } }
}
