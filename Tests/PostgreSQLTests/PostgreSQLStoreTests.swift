import Data
import Domain
import Foundation
@_spi(HardtackTools) import PostgreSQLStore
import StoreCore
import Synchronization
import TestSupport
import Testing

/// The store on a real PostgreSQL server: Keychain semantics, reopening, keys, and damage made with
/// SQL behind the store's back read as damage, never as a wrong value or "not found".
@Suite(.serialized) struct PostgreSQLStoreTests {
    @Test func itemsRoundTripAndSurviveReopening() throws {
        let test = TestStore()
        do {
            let store = try test.open()
            try store.add(.genericPassword(service: "api", account: "alice"), data: secret("s1"))
            try store.add(.genericPassword(service: "api", account: "bob"), data: secret("s2"))
            #expect(throws: SecureStoreError.duplicateItem) {
                try store.add(.genericPassword(service: "api", account: "alice"), data: secret("again"))
            }
            try store.update(.genericPassword(service: "api", account: "alice"), attributes: nil, data: secret("s1b"))
            #expect(try store.delete(.genericPassword(service: "api", account: "bob")) == 1)
        }
        let reopened = try test.open()
        let found = try reopened.find(.genericPassword(service: "api", account: "alice"), limit: .one, returning: .data)
        #expect(found.first?.data?.revealedString() == "s1b")
        #expect(throws: SecureStoreError.itemNotFound) {
            try reopened.find(.genericPassword(service: "api", account: "bob"), limit: .one, returning: .data)
        }
        #expect(try reopened.find(.genericPassword(service: "api"), limit: .all, returning: .attributes).count == 1)
        #expect(try reopened.verify().isSound)
    }

    @Test func aWrongKeyIsRefusedAndChangesNothing() throws {
        let test = TestStore()
        _ = try test.open()
        let other = SecretBytes(count: 32) { buffer in
            for index in buffer.indices { buffer[index] = 7 }
        }
        #expect(throws: SecureStoreError.wrongKey) { try test.open(key: other) }
        _ = try test.open()
    }

    @Test func aTransactionCommitsTogetherOrNotAtAll() throws {
        let test = TestStore()
        let store = try test.open()
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try store.transaction { transaction in
                try transaction.add(.genericPassword(service: "pair", account: "access"), data: secret("a"))
                try transaction.add(.genericPassword(service: "pair", account: "refresh"), data: secret("r"))
                throw Abort()
            }
        }
        #expect(throws: SecureStoreError.itemNotFound) {
            try store.find(.genericPassword(service: "pair"), limit: .all, returning: .attributes)
        }
        try store.transaction { transaction in
            try transaction.add(.genericPassword(service: "pair", account: "access"), data: secret("a"))
            // A duplicate caught inside the body leaves the transaction usable.
            #expect(throws: SecureStoreError.duplicateItem) {
                try transaction.add(.genericPassword(service: "pair", account: "access"), data: secret("x"))
            }
            try transaction.add(.genericPassword(service: "pair", account: "refresh"), data: secret("r"))
        }
        #expect(try store.find(.genericPassword(service: "pair"), limit: .all, returning: .attributes).count == 2)
    }

    @Test func accessGroupsKeepTenantsApart() throws {
        let test = TestStore()
        let tenantA = try test.open(groups: ["tenant-a"])
        let tenantB = try test.open(groups: ["tenant-b"])
        try tenantA.add(.genericPassword(service: "session", account: "u1"), data: secret("a"))
        #expect(throws: SecureStoreError.itemNotFound) {
            try tenantB.find(.genericPassword(service: "session", account: "u1"), limit: .one, returning: .data)
        }
        try tenantB.add(.genericPassword(service: "session", account: "u1"), data: secret("b"))
        #expect(
            try tenantA.find(.genericPassword(service: "session", account: "u1"), limit: .one, returning: .data)
                .first?.data?.revealedString() == "a")
    }

    @Test func nothingReadableIsStoredInAnyColumn() throws {
        let test = TestStore()
        let store = try test.open()
        try store.add(
            .genericPassword(service: "canary-service-7c1", account: "canary-account-7c1", label: "canary-label-7c1"),
            data: secret("canary-secret-7c1"))
        let sql = try test.sql()
        for table in ["items", "meta", "group_digests", "group_registry"] {
            let rows = try sql.query("SELECT t::text FROM \(test.schema).\(table) t")
            for row in 0..<rows.rowCount {
                let text = try rows.string(row, 0)
                #expect(!text.contains("canary"), "plaintext in \(table)")
                // bytea's text form is hex: look for the canary's hex too.
                let hex = "canary".utf8.map { String(format: "%02x", $0) }.joined()
                #expect(!text.contains(hex), "plaintext bytes in \(table)")
            }
        }
    }

    @Test func aRowDeletedWithSQLIsDamageNotAbsence() throws {
        let test = TestStore()
        let store = try test.open()
        try store.add(.genericPassword(service: "api", account: "alice"), data: secret("a"))
        try store.add(.genericPassword(service: "api", account: "bob"), data: secret("b"))
        try test.sql().execute("DELETE FROM \(test.schema).items WHERE id = (SELECT min(id) FROM \(test.schema).items)")
        // Through the open handle (another connection changed the rows) and through a new one.
        for handle in [store, try test.open()] {
            #expect(throws: SecureStoreError.self) {
                try handle.find(.genericPassword(service: "api", account: "alice"), limit: .one, returning: .data)
            }
            do {
                _ = try handle.find(.genericPassword(service: "api", account: "alice"), limit: .one, returning: .data)
            } catch {
                guard case .integrityFailure = error else {
                    Issue.record("expected an integrity failure, got \(error)")
                    continue
                }
            }
        }
        #expect(try !test.open().verify().isSound)
    }

    @Test func ciphertextsSwappedOrFlippedWithSQLAreDamage() throws {
        let test = TestStore()
        let store = try test.open()
        try store.add(.genericPassword(service: "api", account: "alice"), data: secret("alice-secret"))
        try store.add(.genericPassword(service: "api", account: "bob"), data: secret("bob-secret"))
        let sql = try test.sql()
        let items = "\(test.schema).items"
        try sql.execute(
            "UPDATE \(items) a SET data = b.data FROM \(items) b WHERE a.id <> b.id AND a.id = (SELECT min(id) FROM \(items))")
        #expect(throws: SecureStoreError.self) {
            try store.find(.genericPassword(service: "api", account: "alice"), limit: .one, returning: .data)
        }
        let answer = try? store.find(.genericPassword(service: "api", account: "alice"), limit: .one, returning: .data)
        #expect(answer == nil)
        // A joint row's one ciphertext holds its attributes too: nothing decrypts to name the item.
        let swapped = try store.verify()
        #expect(swapped.damaged.count == 1)
        #expect(swapped.damaged.first?.damage == .attributes)
        #expect(swapped.damaged.first?.name.isEmpty == true, "nothing decrypts to name it")
        try sql.execute(
            "UPDATE \(items) SET data = set_byte(data, 30, get_byte(data, 30) # 1) WHERE id = (SELECT max(id) FROM \(items))")
        let verified = try store.verify()
        #expect(verified.damagedItems == 2)
        #expect(verified.soundItems == 0)
        #expect(Set(verified.damaged.map(\.damage)) == [.attributes])
    }

    @Test func anOlderCopyOfARowPutBackIsSeenByTheDigest() throws {
        let test = TestStore()
        let store = try test.open()
        let query = ItemAttributes.genericPassword(service: "token", account: "alice")
        try store.add(query, data: secret("generation-1"))
        let sql = try test.sql()
        let items = "\(test.schema).items"
        let old = try sql.query("SELECT attrs, data, ver FROM \(items)")
        let (attributes, data, version) = (try old.bytes(0, 0), try old.bytes(0, 1), try old.int64(0, 2))
        try store.update(query, attributes: nil, data: secret("generation-2"))
        #expect(try sql.query("SELECT ver FROM \(items)").int64(0, 0) > version)
        // Someone with SQL access puts the first generation back, whole and consistent.
        _ = try sql.query(
            "UPDATE \(items) SET attrs = $1, data = $2, ver = $3", [.bytes(attributes), .bytes(data), .int64(version)])
        let report = try store.verify()
        #expect(report.damagedItems == 0)
        #expect(!report.isSound, "the rows must disagree with their digest")
        #expect(throws: SecureStoreError.self) {
            try store.add(.genericPassword(service: "token", account: "bob"), data: secret("b"))
        }
        do {
            try store.add(.genericPassword(service: "token", account: "bob"), data: secret("b"))
        } catch {
            #expect(error.isIntegrityFailure, "a write must not build on a replayed row: \(error)")
        }
    }

    @Test func anOlderCopyOfARowDeletedAndAddedAgainIsSeenByTheDigest() throws {
        let test = TestStore()
        let store = try test.open()
        let query = ItemAttributes.genericPassword(service: "session", account: "alice")
        try store.add(query, data: secret("first sign-in"))
        let sql = try test.sql()
        let items = "\(test.schema).items"
        let old = try sql.query("SELECT id, attrs, data, ver FROM \(items)")
        let (id, attributes, data, version) = (try old.int64(0, 0), try old.bytes(0, 1), try old.bytes(0, 2), try old.int64(0, 3))
        // Sign-out then sign-in, each from a process of its own: the same key added again.
        try store.delete(query)
        try test.open().add(query, data: secret("second sign-in"))
        let now = try sql.query("SELECT id, ver FROM \(items)")
        #expect(try now.int64(0, 0) != id, "a freed row id is never given again (ids come from a sequence)")
        #expect(try now.int64(0, 1) > version, "nor an old version")
        // The old row put back whole, in place of the new one.
        _ = try sql.query(
            "UPDATE \(items) SET id = $1, attrs = $2, data = $3, ver = $4",
            [.int64(id), .bytes(attributes), .bytes(data), .int64(version)])
        #expect(try !store.verify().isSound, "the older copy disagrees with the digest")
        #expect(throws: SecureStoreError.self) {
            try store.add(.genericPassword(service: "session", account: "bob"), data: secret("b"))
        }
    }

    @Test func aCounterSetBackAfterADeleteIsStillSeenByAnOpenHandle() throws {
        let test = TestStore()
        let store = try test.open()
        try store.add(.genericPassword(service: "api", account: "alice"), data: secret("a"))
        try store.add(.genericPassword(service: "api", account: "bob"), data: secret("b"))
        // The open handle checks the rows once (a "not found" needs them whole).
        #expect(throws: SecureStoreError.itemNotFound) {
            try store.find(.genericPassword(service: "api", account: "carol"), limit: .one, returning: .data)
        }
        let sql = try test.sql()
        let before = try sql.query("SELECT version FROM \(test.schema).group_digests").int64(0, 0)
        try sql.execute("DELETE FROM \(test.schema).items WHERE id = (SELECT min(id) FROM \(test.schema).items)")
        // Someone allowed to update the digest row sets its counter back, hiding the delete.
        _ = try sql.query("UPDATE \(test.schema).group_digests SET version = $1", [.int64(before)])
        do {
            _ = try store.find(.genericPassword(service: "api", account: "alice"), limit: .one, returning: .data)
            Issue.record("a deleted row read as found")
        } catch {
            #expect(error.isIntegrityFailure, "the delete must read as damage, not \(error)")
        }
    }

    @Test func aDeletedHeaderIsDamageAndNoStoreIsMadeOverIt() throws {
        let test = TestStore()
        try test.open().add(.genericPassword(service: "api", account: "alice"), data: secret("a"))
        try test.sql().execute("DELETE FROM \(test.schema).meta")
        #expect(throws: SecureStoreError.self) { try test.open() }
        do {
            _ = try test.open()
        } catch {
            #expect((error as? SecureStoreError)?.isIntegrityFailure == true, "\(error)")
        }
        // Even with every item gone too, the digest left behind says a store was here.
        try test.sql().execute("DELETE FROM \(test.schema).items")
        #expect(throws: SecureStoreError.self) { try test.open() }
        #expect(try test.sql().query("SELECT count(*) FROM \(test.schema).meta").int64(0, 0) == 0)
    }

    @Test func concurrentWritersOnTwoConnectionsLoseNoUpdate() throws {
        let test = TestStore()
        let first = try test.open()
        let second = try test.open()
        try first.add(.genericPassword(service: "counter", account: "n"), data: secret("0"))
        let rounds = 25
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            let store = worker == 0 ? first : second
            for _ in 0..<rounds {
                try? store.transaction { transaction in
                    let query = ItemAttributes.genericPassword(service: "counter", account: "n")
                    let value = try transaction.find(query, limit: .one, returning: .data).first!.data!.revealedString()!
                    try transaction.update(query, attributes: nil, data: secret(String(Int(value)! + 1)))
                }
            }
        }
        let final = try first.find(.genericPassword(service: "counter", account: "n"), limit: .one, returning: .data)
        #expect(final.first?.data?.revealedString() == String(2 * rounds))
    }

    @Test func aConnectionCutBetweenCallsIsReopenedByTheNextCall() throws {
        let test = TestStore()
        let store = try test.open()
        try store.add(.genericPassword(service: "api", account: "alice"), data: secret("a"))
        #expect(try test.terminateStoreConnections() == 1)
        // A read, then a write, each on a connection found cut: both reconnect and succeed.
        let found = try store.find(.genericPassword(service: "api", account: "alice"), limit: .one, returning: .data)
        #expect(found.first?.data?.revealedString() == "a")
        #expect(try test.terminateStoreConnections() == 1)
        try store.add(.genericPassword(service: "api", account: "bob"), data: secret("b"))
        #expect(try store.find(.genericPassword(service: "api"), limit: .all, returning: .attributes).count == 2)
        #expect(try store.verify().isSound)
    }

    @Test func aCancelledStatementIsATimeoutAndTheNextCallGoesOn() throws {
        let test = TestStore()
        let store = try test.open()
        try store.add(.genericPassword(service: "api", account: "alice"), data: secret("a"))
        // Another session holds the items table, so the store's next write waits on it; that wait is
        // cancelled (as `statement_timeout` or an administrator's `pg_cancel_backend` would).
        let blocker = try test.sql()
        try blocker.execute("BEGIN; LOCK TABLE \(test.schema).items IN ACCESS EXCLUSIVE MODE")
        let outcome = Mutex<SecureStoreError?>(nil)
        let writer = Thread {
            do {
                try store.add(.genericPassword(service: "api", account: "bob"), data: secret("b"))
            } catch { outcome.withLock { $0 = error as? SecureStoreError } }
        }
        writer.start()
        let watcher = try test.sql()
        // Bounded at 60 s only against a hang (and by the writer's end, its lock timeout): on a busy machine the
        // writer may take seconds to reach its wait.
        let deadline = Date() + 60
        var cancelled = 0
        while cancelled == 0, !writer.isFinished, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            cancelled = try watcher.query(
                "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
                [.text(test.applicationName)]
            ).rowCount
        }
        #expect(cancelled == 1, "\(cancelled) waits of the store's writer for the lock were cancelled")
        while writer.isExecuting || !writer.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        try blocker.execute("ROLLBACK")
        guard case .storage(let failure)? = outcome.withLock({ $0 }) else {
            Issue.record("expected a storage failure, got \(String(describing: outcome.withLock { $0 }))")
            return
        }
        #expect(failure.kind == .timedOut)
        #expect(failure.detail?.contains("57014") == true, "\(failure)")
        // Nothing was half-written, and the handle goes on.
        #expect(try store.find(.genericPassword(service: "api"), limit: .all, returning: .attributes).count == 1)
        try store.add(.genericPassword(service: "api", account: "bob"), data: secret("b"))
        #expect(try store.verify().isSound)
    }

    @Test func aWriteChosenAsADeadlockVictimIsRunAgainAndSucceeds() throws {
        let test = TestStore()
        let store = try test.open()
        let query = ItemAttributes.genericPassword(service: "api", account: "alice")
        try store.add(query, data: secret("old"))
        // Another session holds the item's row; the store's update takes the digest row's lock, then
        // waits for the item's row; the other session then asks for the digest row: a deadlock, which
        // the server breaks by ending the transaction that waited first, the store's.
        let other = try test.sql()
        // (A row lock without a write: a write would fire the change counter's trigger, which takes the
        // digest row first and so orders the two sessions instead of deadlocking them.)
        try other.execute("BEGIN; SELECT id FROM \(test.schema).items FOR UPDATE")
        let outcome = Mutex<Result<Int, SecureStoreError>?>(nil)
        let writer = Thread {
            do throws(SecureStoreError) {
                let changed = try store.update(query, attributes: nil, data: secret("new"))
                outcome.withLock { $0 = .success(changed) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
        }
        writer.start()
        let watcher = try test.sql()
        // Bounded at 60 s only against a hang (and by the writer's end, its lock timeout): on a busy machine the
        // writer may take seconds to reach its wait.
        let deadline = Date() + 60
        var waiting = 0
        while waiting == 0, !writer.isFinished, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
            waiting = try watcher.query(
                "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
                [.text(test.applicationName)]
            ).rowCount
        }
        #expect(waiting == 1, "\(waiting) sessions of the store waited for a lock")
        // Blocks until the server ends the store's transaction (after deadlock_timeout), then holds the lock.
        _ = try other.query("SELECT value FROM \(test.schema).group_digests FOR UPDATE")
        try other.execute("ROLLBACK")
        while !writer.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        let result = try #require(outcome.withLock { $0 })
        #expect(try result.get() == 1)
        let found = try store.find(query, limit: .one, returning: .data)
        #expect(found.first?.data?.revealedString() == "new")
        #expect(try store.verify().isSound)
    }

    @Test func anUnreachableServerIsUnavailableAndNamesNoPassword() throws {
        let uri = try TestServer.uri(port: 1)
        let started = ContinuousClock.now
        do {
            _ = try PostgreSQLSecureItemStore.open(uri: uri, keySource: .key(TestStore().key))
            Issue.record("opened a store on a closed port")
        } catch {
            guard case .storage(let failure) = error else {
                Issue.record("expected a storage failure, got \(error)")
                return
            }
            #expect(failure.kind == .unavailable)
            #expect(!error.description.contains(try TestServer.password()))
            #expect(!String(reflecting: error).contains(try TestServer.password()))
        }
        #expect(ContinuousClock.now - started < .seconds(10))
    }
}
