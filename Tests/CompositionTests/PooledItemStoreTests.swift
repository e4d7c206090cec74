import Composition
import Data
import Domain
import Foundation
import PostgreSQLStore
import SQLiteStore
import StoreCore
import Synchronization
import TestSupport
import Testing

/// Several connections to one PostgreSQL store used as one: every operation of the port through the pool,
/// writes and transactions on the first connection, reads from many threads spread over all of them, no
/// update lost, and a call through the pool inside its own transaction refused rather than left to hang.
@Suite struct PooledItemStoreTests {
    let uri = ProcessInfo.processInfo.environment["HARDTACK_TEST_POSTGRES"] ?? ""
    let schema = "pool_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20)
    let key = KeySource.key(SecretBytes(Array(repeating: 7, count: 32)))

    func handles(_ count: Int) throws -> [CountingStore] {
        try #require(!uri.isEmpty, "HARDTACK_TEST_POSTGRES is not set: run with Tools/test")
        return try (0..<count).map { _ in
            CountingStore(try PostgreSQLSecureItemStore.open(uri: uri, schema: String(schema), keySource: key))
        }
    }

    @Test func everyOperationGoesThroughAndEachConnectionSeesTheOthersWrites() throws {
        let handles = try handles(3)
        let pool = PooledItemStore(handles)
        let item = ItemAttributes.genericPassword(service: "svc", account: "a")
        try pool.add(item, data: SecretBytes(utf8: "one"))
        #expect(try pool.find(item, limit: .one, returning: .data).first?.data?.revealedString() == "one")
        #expect(try pool.update(item, attributes: nil, data: SecretBytes(utf8: "two")) == 1)
        for handle in handles {
            #expect(try handle.find(item, limit: .one, returning: .data).first?.data?.revealedString() == "two")
        }
        _ = try pool.addOrUpdate(item, data: SecretBytes(utf8: "three"))
        let moved = try pool.transaction { transaction in
            try transaction.add(.genericPassword(service: "svc", account: "b"), data: SecretBytes(utf8: "b"))
            return try transaction.delete(item)
        }
        #expect(moved == 1)
        // Through the pool inside its own transaction: another connection would wait for this one's locks.
        #expect(throws: SecureStoreError.self) {
            try pool.transaction { _ in try pool.find(.genericPassword(service: "svc"), limit: .all, returning: .attributes) }
        }
        #expect(handles.dropFirst().allSatisfy { $0.writes.withLock { $0 } == 0 }, "writes went to the first handle")
        #expect(throws: SecureStoreError.itemNotFound) { try pool.find(item, limit: .one, returning: .data) }
        #expect(try pool.delete(.genericPassword(service: "svc")) == 1)
        #expect(pool.accessGroups == ["default"])
        #expect(try pool.sharedClock() != nil, "PostgreSQL's clock, through a connection")
    }

    @Test func concurrentReadsSpreadOverTheConnectionsAndNoUpdateIsLost() throws {
        let handles = try handles(3)
        let pool = PooledItemStore(handles)
        let counter = ItemAttributes.genericPassword(service: "svc", account: "counter")
        try pool.add(counter, data: SecretBytes(utf8: "0"))
        let failures = Mutex(0)
        // Six threads of their own (the machine may have two cores: a pool of its threads would not hold six
        // calls at once), each incrementing the counter in a transaction and reading it.
        let done = DispatchGroup()
        for _ in 0..<6 {
            done.enter()
            Thread {
                defer { done.leave() }
                for _ in 0..<10 {
                    do {
                        try pool.transaction { transaction in
                            let value = try transaction.find(counter, limit: .one, returning: .data).first?.data?
                                .revealedString().flatMap { Int($0) } ?? -1
                            _ = try transaction.update(counter, attributes: nil, data: SecretBytes(utf8: String(value + 1)))
                        }
                        for _ in 0..<3 { _ = try pool.find(counter, limit: .one, returning: .data) }
                    } catch {
                        failures.withLock { $0 += 1 }
                    }
                }
            }.start()
        }
        done.wait()
        #expect(failures.withLock { $0 } == 0)
        #expect(try pool.find(counter, limit: .one, returning: .data).first?.data?.revealedString() == "60")
        #expect(handles.allSatisfy { $0.calls.withLock { $0 } > 0 }, "every connection took reads")
        #expect(handles.dropFirst().allSatisfy { $0.writes.withLock { $0 } == 0 }, "only the first took writes")
        #expect(handles.dropFirst().map { $0.mostAtOnce.withLock { $0 } }.max() ?? 0 <= 3, "no reader held a crowd")
    }
}

/// A store handle that counts the calls it takes and the most it held at once.
final class CountingStore: SecureItemStore {
    let base: PostgreSQLSecureItemStore
    let calls = Mutex(0)
    let writes = Mutex(0)
    let mostAtOnce = Mutex(0)
    private let now = Mutex(0)

    init(_ base: PostgreSQLSecureItemStore) { self.base = base }

    var accessGroups: [String] { base.accessGroups }

    private func counted<Value, Failure: Error>(_ body: () throws(Failure) -> Value) throws(Failure) -> Value {
        calls.withLock { $0 += 1 }
        let held = now.withLock { $0 += 1; return $0 }
        mostAtOnce.withLock { $0 = max($0, held) }
        defer { now.withLock { $0 -= 1 } }
        return try body()
    }

    func transaction<Result>(_ body: (any SecureItemTransaction) throws -> Result) throws -> Result {
        writes.withLock { $0 += 1 }
        return try counted { () throws in try base.transaction(body) }
    }

    func add(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) {
        writes.withLock { $0 += 1 }
        try counted { () throws(SecureStoreError) in try base.add(attributes, data: data) }
    }

    func find(_ query: ItemAttributes, limit: MatchLimit, returning parts: ItemParts) throws(SecureStoreError) -> [StoredItem] {
        try counted { () throws(SecureStoreError) in try base.find(query, limit: limit, returning: parts) }
    }

    func update(_ query: ItemAttributes, attributes: ItemAttributes?, data: SecretBytes?) throws(SecureStoreError) -> Int {
        writes.withLock { $0 += 1 }
        return try counted { () throws(SecureStoreError) in try base.update(query, attributes: attributes, data: data) }
    }

    func delete(_ query: ItemAttributes) throws(SecureStoreError) -> Int {
        writes.withLock { $0 += 1 }
        return try counted { () throws(SecureStoreError) in try base.delete(query) }
    }

    func addOrUpdate(_ attributes: ItemAttributes, data: SecretBytes) throws(SecureStoreError) -> AddOrUpdateOutcome {
        writes.withLock { $0 += 1 }
        return try counted { () throws(SecureStoreError) in try base.addOrUpdate(attributes, data: data) }
    }

    func sharedClock() throws(SecureStoreError) -> Date? {
        try counted { () throws(SecureStoreError) in try base.sharedClock() }
    }
}

/// A pool's change mark is its first handle's, which sees every sibling's commit as another connection's.
@Suite struct PooledChangeMarkTests {
    @Test func aWriteThroughAnyHandleMovesThePoolsMarkAndReadsDoNot() throws {
        let directory = TemporaryDirectory()
        let open = {
            try SQLiteSecureItemStore.open(
                at: directory.file("keychain.db"), keySource: .keyFile(path: directory.file("keychain.key")))
        }
        let handles = [try open(), try open()]
        let pool = PooledItemStore(handles)
        let item = ItemAttributes.genericPassword(service: "svc", account: "a")
        try pool.add(item, data: SecretBytes(utf8: "one"))
        let start = try #require(pool.changeMark(waiting: true))
        _ = try pool.find(item, limit: .one, returning: .data)
        _ = try pool.find(item, limit: .one, returning: .data)
        #expect(pool.changeMark(waiting: false) == start)
        // The second handle's own write (as another process's would be) moves the first handle's mark.
        try handles[1].update(item, attributes: nil, data: SecretBytes(utf8: "two"))
        #expect(pool.changeMark(waiting: true) != start)
        #expect(try pool.transaction { _ in pool.changeMark(waiting: true) } == nil)
    }
}
