/// The workload straight against SQLite and libsodium (``DirectStore``), timed the same way as
/// ``HardtackWorkload``.
enum DirectWorkload {
    /// Runs put, get, update and delete over a fresh database in `directory`.
    static func run(_ workload: Workload, sync: SyncMode, directory: String) throws -> WorkloadResult {
        let path = directory + "/direct-\(sync.rawValue).db"
        let store = try DirectStore(path: path, sync: sync)
        let count = workload.count
        let messages = workload.accounts.map(DirectStore.lookupMessage(account:))
        var samples = [UInt64](repeating: 0, count: count)
        var result = WorkloadResult()

        for index in 0..<count {
            let message = messages[index]
            let secret = workload.secrets[index]
            samples[index] = try MonotonicClock.time { try store.put(message, secret: secret) }
        }
        result.operations[.put] = LatencySummary(nanoseconds: samples)
        try store.checkpoint()
        result.bytesPerItem = Double(FileSize.of(path)) / Double(count)

        for (position, index) in workload.getOrder.enumerated() {
            let message = messages[index]
            var length = 0
            samples[position] = try MonotonicClock.time { length = try store.get(message) }
            guard length == Workload.secretLength else {
                throw DirectStore.Failure(description: "a get returned the wrong item")
            }
        }
        result.operations[.get] = LatencySummary(nanoseconds: samples)

        for (position, index) in workload.updateOrder.enumerated() {
            let message = messages[index]
            let secret = workload.updateSecrets[position]
            samples[position] = try MonotonicClock.time { try store.update(message, secret: secret) }
        }
        result.operations[.update] = LatencySummary(nanoseconds: samples)

        for (position, index) in workload.deleteOrder.enumerated() {
            let message = messages[index]
            samples[position] = try MonotonicClock.time { try store.delete(message) }
        }
        result.operations[.delete] = LatencySummary(nanoseconds: samples)
        return result
    }
}
