import BenchSupport
import Data
import Domain
import SQLiteStore
import StoreCore

/// Get latency against the number of items in the store: fill a store (in batches, untimed), then time
/// random gets.
enum ScalingBenchmark {
    /// How many items one fill transaction adds.
    static let batch = 1000

    /// The account of item `k` of a store of any size: a bijection of `k` onto the 7-digit numbers, so
    /// accounts are distinct without keeping a set of them in memory.
    static func account(_ k: Int, offset: Int) -> String {
        Workload.account((k &* 7_368_787 &+ offset) % 10_000_000)
    }

    /// Get figures of Hardtack's store holding `items` items.
    static func hardtack(items: Int, gets: Int, seed: UInt64, directory: String) throws -> LatencySummary {
        var generator = SeededGenerator(seed: seed)
        let offset = Int.random(in: 0..<10_000_000, using: &generator)
        let pool = (0..<64).map { _ in SecretBytes(Workload.secret(&generator)) }
        let path = directory + "/scale-hardtack-\(items).db"
        let store = try SQLiteSecureItemStore.open(
            at: path, keySource: .keyFile(path: path + ".key"), options: StoreOptions(durability: .normal))
        var next = 0
        while next < items {
            let end = min(items, next + batch)
            try store.transaction { transaction in
                for k in next..<end {
                    try transaction.add(
                        .genericPassword(service: Workload.service, account: account(k, offset: offset)),
                        data: pool[k % pool.count])
                }
            }
            next = end
        }
        try store.checkpoint()
        let queries = (0..<gets).map { _ in
            ItemAttributes.genericPassword(
                service: Workload.service, account: account(Int.random(in: 0..<items, using: &generator), offset: offset))
        }
        var samples = [UInt64](repeating: 0, count: gets)
        for (position, query) in queries.enumerated() {
            var found: [StoredItem] = []
            samples[position] = try MonotonicClock.time { found = try store.find(query, limit: .one, returning: .data) }
            guard found.count == 1 else { throw HardtackSubject.Mismatch(description: "a get found nothing") }
        }
        return LatencySummary(nanoseconds: samples)
    }

    /// Get figures of the direct implementation holding `items` items.
    static func direct(items: Int, gets: Int, seed: UInt64, directory: String) throws -> LatencySummary {
        var generator = SeededGenerator(seed: seed)
        let offset = Int.random(in: 0..<10_000_000, using: &generator)
        let pool = (0..<64).map { _ in Workload.secret(&generator) }
        let store = try DirectStore(path: directory + "/scale-direct-\(items).db", sync: .normal)
        var next = 0
        while next < items {
            let end = min(items, next + batch)
            try store.batch {
                for k in next..<end {
                    try store.put(DirectStore.lookupMessage(account: account(k, offset: offset)), secret: pool[k % pool.count])
                }
            }
            next = end
        }
        try store.checkpoint()
        let messages = (0..<gets).map { _ in
            DirectStore.lookupMessage(account: account(Int.random(in: 0..<items, using: &generator), offset: offset))
        }
        var samples = [UInt64](repeating: 0, count: gets)
        for (position, message) in messages.enumerated() {
            samples[position] = try MonotonicClock.time { _ = try store.get(message) }
        }
        return LatencySummary(nanoseconds: samples)
    }
}
