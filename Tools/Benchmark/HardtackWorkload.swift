import Data
import Domain
import Infrastructure

/// The workload through Hardtack's public store API: `SQLiteSecureItemStore` opened with a key file.
enum HardtackWorkload {
    /// A failed check of the store's answers (an item missing, a wrong count): the run is invalid.
    struct Mismatch: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs put, get, update and delete over a fresh store in `directory`.
    static func run(_ workload: Workload, sync: SyncMode, directory: String) throws -> WorkloadResult {
        let path = directory + "/hardtack-\(sync.rawValue).db"
        let store = try SQLiteSecureItemStore.open(
            at: path, keySource: .keyFile(path: path + ".key"), options: StoreOptions(durability: sync.durability))
        let count = workload.count
        // Inputs, prepared before any timer: the queries, and the secrets already in wiped-on-release memory.
        let items = workload.accounts.map { ItemAttributes.genericPassword(service: Workload.service, account: $0) }
        var samples = [UInt64](repeating: 0, count: count)
        var result = WorkloadResult()

        let secrets = workload.secrets.map { SecretBytes($0) }
        for index in 0..<count {
            let item = items[index]
            let secret = secrets[index]
            samples[index] = try MonotonicClock.time { try store.add(item, data: secret) }
        }
        result.operations[.put] = LatencySummary(nanoseconds: samples)
        try store.checkpoint()
        result.bytesPerItem = Double(FileSize.of(path)) / Double(count)

        for (position, index) in workload.getOrder.enumerated() {
            let query = items[index]
            var found: [StoredItem] = []
            samples[position] = try MonotonicClock.time {
                found = try store.find(query, limit: .one, returning: .data)
            }
            guard found.count == 1, found[0].data?.count == Workload.secretLength else {
                throw Mismatch(description: "a get returned the wrong item")
            }
        }
        result.operations[.get] = LatencySummary(nanoseconds: samples)

        let newSecrets = workload.updateSecrets.map { SecretBytes($0) }
        for (position, index) in workload.updateOrder.enumerated() {
            let query = items[index]
            let secret = newSecrets[position]
            var changed = 0
            samples[position] = try MonotonicClock.time {
                changed = try store.update(query, attributes: nil, data: secret)
            }
            guard changed == 1 else { throw Mismatch(description: "an update changed \(changed) items") }
        }
        result.operations[.update] = LatencySummary(nanoseconds: samples)

        for (position, index) in workload.deleteOrder.enumerated() {
            let query = items[index]
            var removed = 0
            samples[position] = try MonotonicClock.time { removed = try store.delete(query) }
            guard removed == 1 else { throw Mismatch(description: "a delete removed \(removed) items") }
        }
        result.operations[.delete] = LatencySummary(nanoseconds: samples)
        return result
    }
}
