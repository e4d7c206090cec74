/// Runs the workload over several subjects side by side: each operation's phase goes through the items
/// in blocks, and the subjects take turns block by block (the first one alternating), so a burst of
/// load from elsewhere on the machine falls on all of them alike rather than on whichever ran then.
enum WorkloadRunner {
    /// Operations per block: long enough to keep each store's pages in the caches, short enough that
    /// the machine's load does not change within a turn.
    static let block = 250

    /// The figures of each subject, in the order given.
    static func run(_ workload: Workload, subjects: [any WorkloadSubject]) throws -> [WorkloadResult] {
        var results = Array(repeating: WorkloadResult(), count: subjects.count)
        let count = workload.count
        var samples = Array(repeating: [UInt64](repeating: 0, count: count), count: subjects.count)

        func phase(_ op: Operation, _ body: (any WorkloadSubject, Int) throws -> Void) throws {
            var turn = 0
            for start in stride(from: 0, to: count, by: block) {
                let end = min(count, start + block)
                for offset in 0..<subjects.count {
                    let index = (offset + turn) % subjects.count
                    let subject = subjects[index]
                    for position in start..<end {
                        samples[index][position] = try MonotonicClock.time { try body(subject, position) }
                    }
                }
                turn += 1
            }
            for index in subjects.indices { results[index].operations[op] = LatencySummary(nanoseconds: samples[index]) }
        }

        try phase(.put) { subject, position in try subject.put(position) }
        for (index, subject) in subjects.enumerated() {
            try subject.checkpoint()
            results[index].bytesPerItem = Double(subject.fileSize) / Double(count)
        }
        try phase(.get) { subject, position in
            guard try subject.get(workload.getOrder[position]) == Workload.secretLength else {
                throw HardtackSubject.Mismatch(description: "\(subject.name): a get returned the wrong item")
            }
        }
        try phase(.update) { subject, position in try subject.update(workload.updateOrder[position], position) }
        try phase(.delete) { subject, position in try subject.delete(workload.deleteOrder[position]) }
        return results
    }
}
