extension ContentionWorker.Report {
    /// Adds `other`'s counts, errors and latencies to this report.
    mutating func merge(_ other: ContentionWorker.Report) {
        transactions += other.transactions
        reads += other.reads
        busy += other.busy
        errors += other.errors
        latencies += other.latencies
        readLatencies += other.readLatencies
        reopens += other.reopens
        for (index, count) in other.increments.enumerated() where index < increments.count {
            increments[index] += count
        }
    }
}
