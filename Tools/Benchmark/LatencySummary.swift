/// The figures of one timed phase: throughput and latency percentiles, from one duration per operation.
struct LatencySummary {
    /// Operations timed.
    let count: Int
    /// Operations per second of time spent inside the operations.
    let opsPerSecond: Double
    /// Median latency, in microseconds.
    let p50: Double
    /// 99th-percentile latency, in microseconds.
    let p99: Double

    /// Summarizes durations in nanoseconds.
    init(nanoseconds samples: [UInt64]) {
        let sorted = samples.sorted()
        count = sorted.count
        let total = sorted.reduce(0, +)
        opsPerSecond = total == 0 ? 0 : Double(count) / (Double(total) / 1e9)
        p50 = sorted.isEmpty ? 0 : Double(sorted[sorted.count / 2]) / 1000
        p99 = sorted.isEmpty ? 0 : Double(sorted[min(sorted.count - 1, sorted.count * 99 / 100)]) / 1000
    }

    /// The element-wise median of several runs' summaries (each figure on its own).
    init(medianOf runs: [LatencySummary]) {
        precondition(!runs.isEmpty)
        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            return sorted.count % 2 == 1
                ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
        count = runs[0].count
        opsPerSecond = median(runs.map(\.opsPerSecond))
        p50 = median(runs.map(\.p50))
        p99 = median(runs.map(\.p99))
    }
}
