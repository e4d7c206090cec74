import BenchSupport
import Domain
import Foundation
import StoreCore

/// The store on PostgreSQL against a direct libpq implementation of the same workload with the same
/// crypto (``DirectPostgreSQLStore``), side by side in one run, and the throughput of several writer
/// processes sharing one store. A third subject, `floor`, is the direct implementation with what the
/// store's protection minimally adds to a write: one digest row updated in the same transaction, in the
/// same round trip; so the figures show how much of the gap is the protection and how much is Hardtack.
enum PostgreSQLBenchmark {
    /// The target ratio of Hardtack's p50 over the direct p50, for every operation.
    static let target = 1.3
    /// The variable that hands the store's key (64 hex digits) to the writer processes.
    static let keyVariable = "HARDTACK_BENCH_KEY"

    /// The key of every store the benchmark opens: from ``keyVariable``, set once per process.
    static var keySource: KeySource {
        if getenv(keyVariable) == nil {
            let hex = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            setenv(keyVariable, hex, 1)
        }
        return .environment(variable: keyVariable)
    }

    /// Runs the workload `options.runs` times on the server at `uri` and then the writers, printing
    /// every figure.
    static func run(uri: String, options: BenchmarkOptions) throws {
        let seed = options.seed ?? UInt64.random(in: 0..<1_000_000_000)
        Report.line(
            "# hardtack-bench postgresql seed=\(seed) n=\(options.count) runs=\(options.runs) writers=\(options.writers)"
        )
        var generator = SeededGenerator(seed: seed)
        let workload = Workload(count: options.count, generator: &generator)
        var hardtackRuns: [WorkloadResult] = []
        var directRuns: [WorkloadResult] = []
        var floorRuns: [WorkloadResult] = []
        for run in 0..<options.runs {
            var subjects: [any WorkloadSubject] = [
                try HardtackPostgreSQLSubject(workload, uri: uri, schema: schemaName("hardtack", run)),
                try DirectPostgreSQLSubject(workload, uri: uri, schema: schemaName("direct", run)),
                try DirectPostgreSQLSubject(workload, uri: uri, schema: schemaName("floor", run), digest: true),
            ]
            // Each subject goes first in turn (the runner alternates within a run as well).
            subjects = Array(subjects[(run % 3)...] + subjects[..<(run % 3)])
            for (subject, result) in zip(subjects, try WorkloadRunner.run(workload, subjects: subjects)) {
                switch subject.name {
                case "hardtack": hardtackRuns.append(result)
                case "floor": floorRuns.append(result)
                default: directRuns.append(result)
                }
            }
        }
        let hardtack = Benchmark.median(hardtackRuns)
        let direct = Benchmark.median(directRuns)
        let floor = Benchmark.median(floorRuns)
        for op in Operation.allCases {
            guard let mine = hardtack.operations[op], let theirs = direct.operations[op], theirs.p50 > 0 else {
                continue
            }
            Report.line(line(op, mine, "hardtack"))
            Report.line(line(op, theirs, "direct"))
            let ratio = mine.p50 / theirs.p50
            Report.line(
                "ratio backend=postgresql op=\(op.rawValue) p50=\(Report.fixed(ratio, 2)) "
                    + "p99=\(Report.fixed(mine.p99 / theirs.p99, 2)) target=\(Report.fixed(target, 1)) "
                    + "met=\(Report.met(ratio <= target))")
            // The floor: a get is the direct one; a write adds one digest row's update, same round trip.
            guard op != .get, let least = floor.operations[op], least.p50 > 0 else { continue }
            Report.line(line(op, least, "floor"))
            Report.line(
                "floor backend=postgresql op=\(op.rawValue) floor_over_direct_p50=\(Report.fixed(least.p50 / theirs.p50, 2)) "
                    + "hardtack_over_floor_p50=\(Report.fixed(mine.p50 / least.p50, 2)) "
                    + "hardtack_over_floor_p99=\(Report.fixed(mine.p99 / least.p99, 2))")
        }
        Report.line(
            "disk backend=postgresql bytes_per_item impl=hardtack \(Int(hardtack.bytesPerItem)) "
                + "impl=direct \(Int(direct.bytesPerItem)) (table, indexes and TOAST)")
        if options.writers > 0 {
            // "hardtack-groups": each writer process a tenant of its own (an access group of its own).
            for implementation in ["hardtack", "hardtack-groups", "direct"] {
                try writers(implementation, uri: uri, options: options, seed: seed)
            }
        }
    }

    /// A schema name unique to this process and run.
    static func schemaName(_ implementation: String, _ run: Int) -> String {
        "bench_\(implementation.replacingOccurrences(of: "-", with: "_"))_\(getpid())_\(run)"
    }

    private static func line(_ op: Operation, _ summary: LatencySummary, _ implementation: String) -> String {
        "op=\(op.rawValue) backend=postgresql n=\(summary.count) ops_per_s=\(Int(summary.opsPerSecond.rounded())) "
            + "p50_us=\(Report.fixed(summary.p50)) p99_us=\(Report.fixed(summary.p99)) impl=\(implementation)"
    }

    /// Starts `options.writers` processes that put and then update items of their own in one shared
    /// store (with `hardtack-groups`, each in an access group of its own), and prints the writes per
    /// second of them all together.
    private static func writers(_ implementation: String, uri: String, options: BenchmarkOptions, seed: UInt64) throws {
        let schema = schemaName("\(implementation)_writers", 0)
        let perWriter = max(50, options.count / options.writers)
        // The shared store or table exists before any writer starts, and goes when they are done.
        var generator = SeededGenerator(seed: seed)
        let empty = Workload(count: 1, generator: &generator)
        let owner: AnyObject =
            implementation.hasPrefix("hardtack")
            ? try HardtackPostgreSQLSubject(empty, uri: uri, schema: schema, prefix: "owner-")
            : try DirectPostgreSQLSubject(empty, uri: uri, schema: schema, prefix: "owner-")
        defer { withExtendedLifetime(owner) {} }
        let executable = CommandLine.arguments[0]
        let started = Date()
        var children: [Process] = []
        for index in 0..<options.writers {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: executable)
            child.arguments = [
                "--postgres", uri, "--writer-child", implementation, "--schema", schema, "--n", String(perWriter),
                "--seed", String(seed &+ UInt64(index) &+ 1), "--writer-index", String(index),
            ]
            child.standardOutput = FileHandle.nullDevice
            try child.run()
            children.append(child)
        }
        var failed = 0
        for child in children {
            child.waitUntilExit()
            if child.terminationStatus != 0 { failed += 1 }
        }
        let seconds = Date().timeIntervalSince(started)
        let writes = 2 * perWriter * (options.writers - failed)
        Report.line(
            "writers backend=postgresql impl=\(implementation) processes=\(options.writers) writes=\(writes) "
                + "seconds=\(Report.fixed(seconds, 2)) writes_per_s=\(Int((Double(writes) / seconds).rounded())) "
                + "failed_processes=\(failed)")
    }

    /// One writer process: `count` puts and then `count` updates of items of its own (accounts drawn
    /// from its own seed) in the store or table in `schema`. Exits non-zero on any failure.
    static func writerChild(_ implementation: String, uri: String, schema: String, options: BenchmarkOptions) throws {
        var generator = SeededGenerator(seed: options.seed ?? 1)
        let workload = Workload(count: options.count, generator: &generator)
        let subject: any WorkloadSubject =
            implementation.hasPrefix("hardtack")
            ? try HardtackPostgreSQLSubject(
                workload, uri: uri, schema: schema, prefix: "w\(options.writerIndex)-", dropsSchema: false,
                group: implementation == "hardtack-groups" ? "tenant-\(options.writerIndex)" : "default")
            : try DirectPostgreSQLSubject(
                workload, uri: uri, schema: schema, prefix: "w\(options.writerIndex)-", creating: false)
        for item in 0..<workload.count { try subject.put(item) }
        for item in 0..<workload.count { try subject.update(item, item) }
    }
}
