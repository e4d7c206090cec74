import Data
import Domain
import StoreCore
import TestSupport
import Testing

/// Many tasks in one process, on one handle or on two (two connections to one store): no
/// read-modify-write is lost and no add is duplicated.
@Suite struct ConcurrencyTests {
    private static let tasks = 8
    private static let incrementsPerTask = 50
    private static let counters = [
        ItemAttributes.genericPassword(service: "counter", account: "even"),
        ItemAttributes.genericPassword(service: "counter", account: "odd"),
    ]

    /// Adds one to the counter in one transaction: read, then write, with the write lock held throughout.
    private static func increment(_ counter: ItemAttributes, in store: any SecureItemStore) throws {
        try store.transaction { transaction in
            let current: Int
            do {
                current = try transaction.findValue(Int.self, counter)
            } catch SecureStoreError.itemNotFound {
                current = 0
            }
            try transaction.addOrUpdate(counter, value: current + 1)
        }
    }

    /// Runs the increments, task `n` on `stores[n % stores.count]` and counter `n / stores.count % 2`.
    private static func run(on stores: [any StoreHandle]) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                let store = stores[task % stores.count]
                let counter = counters[task / stores.count % counters.count]
                group.addTask {
                    for _ in 0..<incrementsPerTask { try increment(counter, in: store) }
                }
            }
            try await group.waitForAll()
        }
    }

    private func expectTotals(_ store: any StoreHandle) throws {
        let perCounter = Self.tasks * Self.incrementsPerTask / Self.counters.count
        for counter in Self.counters {
            #expect(try store.findValue(Int.self, counter) == perCounter)
        }
        #expect(try store.find(.genericPassword(service: "counter"), limit: .all).count == Self.counters.count)
    }

    @Test(arguments: StoreAdapter.all)
    func incrementsOnOneHandleAreNeverLost(adapter: StoreAdapter) async throws {
        let fixture = try ConformanceFixture(adapter)
        let store = try fixture.open(durability: .normal)
        try await Self.run(on: [store])
        try expectTotals(store)
    }

    @Test(arguments: StoreAdapter.all)
    func incrementsOnTwoHandlesOfOneFileAreNeverLost(adapter: StoreAdapter) async throws {
        let fixture = try ConformanceFixture(adapter)
        let first = try fixture.open(durability: .normal)
        let second = try fixture.open(durability: .normal)
        try await Self.run(on: [first, second])
        try expectTotals(first)
        try expectTotals(second)
        #expect(try first.verify().isSound)
    }

    @Test(arguments: StoreAdapter.all)
    func handlesCreatingOneNewStoreAtOnceAllGetTheSameStore(adapter: StoreAdapter) async throws {
        let fixture = try ConformanceFixture(adapter)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    let store = try fixture.open(durability: .normal)
                    try store.add(.genericPassword(service: "first use", account: "\(task)"), data: secret("\(task)"))
                }
            }
            try await group.waitForAll()
        }
        let store = try fixture.open()
        #expect(try await store.find(.genericPassword(service: "first use"), limit: .all).count == 4)
        #expect(try store.verify().isSound)
    }

    @Test(arguments: StoreAdapter.all)
    func concurrentAddsFromTwoHandlesAreAllKeptOnce(adapter: StoreAdapter) async throws {
        let fixture = try ConformanceFixture(adapter)
        let stores: [any StoreHandle] = [try fixture.open(durability: .normal), try fixture.open(durability: .normal)]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<Self.tasks {
                let store = stores[task % 2]
                group.addTask {
                    for index in 0..<25 {
                        let name = "\(task)-\(index)"
                        try store.add(.genericPassword(service: "add", account: name), data: secret(name))
                        // Everyone also races for one shared key: exactly one add of it wins.
                        do {
                            try store.add(
                                .genericPassword(service: "shared", account: "\(index)"), data: secret("\(task)"))
                        } catch SecureStoreError.duplicateItem {}
                    }
                }
            }
            try await group.waitForAll()
        }
        let added = try await stores[0].find(.genericPassword(service: "add"), limit: .all, returning: .all)
        #expect(added.count == Self.tasks * 25)
        #expect(added.allSatisfy { $0.text == $0.string(.account) })
        #expect(try await stores[1].find(.genericPassword(service: "shared"), limit: .all).count == 25)
        let report = try stores[1].verify()
        #expect(report.soundItems == Self.tasks * 25 + 25)
        #expect(report.isSound)
    }
}
