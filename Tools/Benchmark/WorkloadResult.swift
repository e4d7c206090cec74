/// What one run of the workload measured for one implementation and sync mode.
struct WorkloadResult {
    /// The latency figures of each operation.
    var operations: [Operation: LatencySummary] = [:]
    /// The database file's size per item after the puts and a checkpoint.
    var bytesPerItem: Double = 0
}
