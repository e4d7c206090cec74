import BenchSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation

/// The whole benchmark: the workload through Hardtack and directly, get latency against store size,
/// bytes per item, open and unlock, `hardtack status`, and peak memory.
enum Benchmark {
    /// The Secret Service figures the issue compares against (libsecret over gnome-keyring), in µs.
    static let secretServiceGet = 1200.0
    static let secretServicePut = 5000.0

    /// Runs what `options` asks for and prints the figures.
    static func run(_ options: BenchmarkOptions) throws {
        let seed = options.seed ?? UInt64.random(in: 0..<1_000_000_000)
        let parent = options.directory ?? ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        let directory = try TemporaryDirectory(under: parent)
        Report.line(
            "# hardtack-bench seed=\(seed) n=\(options.count) runs=\(options.runs) quick=\(options.quick) "
                + "sizes=\(options.sizes) dir=\(parent)")
        var generator = SeededGenerator(seed: seed)
        let workload = Workload(count: options.count, generator: &generator)

        var medians: [SyncMode: (hardtack: WorkloadResult, direct: WorkloadResult)] = [:]
        for sync in SyncMode.allCases {
            medians[sync] = try workloadMedians(workload, sync: sync, options: options, directory: directory)
        }
        printRatios(medians, options: options)
        guard !options.workloadOnly else { return }

        if let hardtack = medians[.full]?.hardtack, let direct = medians[.full]?.direct {
            let plaintext = Workload.secretLength + Workload.service.utf8.count + workload.accounts[0].utf8.count
            let overhead = hardtack.bytesPerItem - Double(plaintext)
            Report.line(
                "disk impl=hardtack items=\(options.count) bytes_per_item=\(Report.fixed(hardtack.bytesPerItem)) "
                    + "plaintext_per_item=\(plaintext) overhead=\(Report.fixed(overhead)) "
                    + "target=\(Int(Report.bytesPerItemTarget)) met=\(Report.met(hardtack.bytesPerItem <= Report.bytesPerItemTarget))")
            Report.line(
                "disk impl=direct items=\(options.count) bytes_per_item=\(Report.fixed(direct.bytesPerItem)) "
                    + "overhead=\(Report.fixed(direct.bytesPerItem - Double(plaintext)))")
        }

        try scaling(options: options, seed: seed, directory: directory)
        let workloadPeak = peakResidentKiB()
        Report.line("memory peak_rss_kib=\(workloadPeak) phase=workload+scaling")

        let openDirectory = directory.subdirectory("open")
        let keyFileOpen = try OpenBenchmark.keyFile(repeats: options.quick ? 5 : 21, directory: openDirectory)
        Report.line("open source=keyfile p50_ms=\(Report.fixed(keyFileOpen, 2)) target_ms=5 met=\(Report.met(keyFileOpen < 5))")
        let cost = OpenBenchmark.passphraseCost
        let passphraseOpen = try OpenBenchmark.passphrase(repeats: options.quick ? 1 : 3, directory: openDirectory)
        Report.line(
            "open source=passphrase argon2id_opslimit=\(cost.opsLimit) argon2id_memlimit_mib=\(cost.memLimit >> 20) "
                + "p50_ms=\(Report.fixed(passphraseOpen, 1)) floor=moderate")

        try status(options: options, generator: &generator, directory: directory)
        Report.line("memory peak_rss_kib=\(peakResidentKiB()) phase=all (Argon2id MODERATE alone takes 256 MiB)")

        if let full = medians[.full], let normal = medians[.normal],
            let get = normal.hardtack.operations[.get], let putFull = full.hardtack.operations[.put],
            let putNormal = normal.hardtack.operations[.put]
        {
            let getSpeedup = secretServiceGet / get.p50
            let putSpeedupFull = secretServicePut / putFull.p50
            let putSpeedupNormal = secretServicePut / putNormal.p50
            Report.line(
                "secret_service get_speedup=\(Int(getSpeedup)) put_speedup_full=\(Int(putSpeedupFull)) "
                    + "put_speedup_normal=\(Int(putSpeedupNormal)) target=100 "
                    + "met_get=\(Report.met(getSpeedup >= 100)) met_put_full=\(Report.met(putSpeedupFull >= 100)) "
                    + "met_put_normal=\(Report.met(putSpeedupNormal >= 100))")
        }
    }

    /// Runs the workload `options.runs` times, the implementations side by side (see
    /// ``WorkloadRunner``), and prints the median figures.
    private static func workloadMedians(
        _ workload: Workload, sync: SyncMode, options: BenchmarkOptions, directory: TemporaryDirectory
    ) throws -> (hardtack: WorkloadResult, direct: WorkloadResult) {
        var hardtackRuns: [WorkloadResult] = []
        var directRuns: [WorkloadResult] = []
        for run in 0..<options.runs {
            let sub = directory.subdirectory("workload-\(sync.rawValue)-\(run)")
            defer { directory.remove(sub) }
            var subjects: [any WorkloadSubject] = []
            if options.implementation != "direct" {
                subjects.append(try HardtackSubject(workload, sync: sync, directory: sub))
            }
            if options.implementation != "hardtack" {
                subjects.append(try DirectSubject(workload, sync: sync, directory: sub))
            }
            // Alternate which goes first from run to run.
            if run % 2 == 1 { subjects.reverse() }
            for (subject, result) in zip(subjects, try WorkloadRunner.run(workload, subjects: subjects)) {
                if subject.name == "hardtack" { hardtackRuns.append(result) } else { directRuns.append(result) }
            }
        }
        let hardtack = median(hardtackRuns)
        let direct = median(directRuns)
        for op in Operation.allCases {
            if let summary = hardtack.operations[op] {
                Report.line(Report.operation(op, sync: sync, summary: summary, implementation: "hardtack"))
            }
            if let summary = direct.operations[op] {
                Report.line(Report.operation(op, sync: sync, summary: summary, implementation: "direct"))
            }
        }
        return (hardtack, direct)
    }

    /// The per-figure median of several runs.
    static func median(_ runs: [WorkloadResult]) -> WorkloadResult {
        var result = WorkloadResult()
        guard !runs.isEmpty else { return result }
        for op in Operation.allCases {
            result.operations[op] = LatencySummary(medianOf: runs.compactMap { $0.operations[op] })
        }
        result.bytesPerItem = runs.map(\.bytesPerItem).sorted()[runs.count / 2]
        return result
    }

    /// Prints Hardtack's p50 over the direct p50 for each operation and sync mode, against its target.
    private static func printRatios(
        _ medians: [SyncMode: (hardtack: WorkloadResult, direct: WorkloadResult)], options: BenchmarkOptions
    ) {
        for sync in SyncMode.allCases {
            for op in Operation.allCases {
                guard let hardtack = medians[sync]?.hardtack.operations[op],
                    let direct = medians[sync]?.direct.operations[op], direct.p50 > 0
                else { continue }
                let ratio = hardtack.p50 / direct.p50
                let target = Report.target(op, sync: sync)
                Report.line(
                    "ratio op=\(op.rawValue) sync=\(sync.rawValue) p50=\(Report.fixed(ratio, 2)) "
                        + "ops_per_s=\(Report.fixed(hardtack.opsPerSecond / direct.opsPerSecond, 2)) "
                        + "target=\(Report.fixed(target, 1)) met=\(Report.met(ratio <= target))")
            }
        }
    }

    /// Get latency at 1,000 items, and at 100,000 and 1,000,000 with `--sizes`.
    private static func scaling(options: BenchmarkOptions, seed: UInt64, directory: TemporaryDirectory) throws {
        let sizes = options.sizes ? [1000, 100_000, 1_000_000] : [1000]
        let gets = options.quick ? 2000 : 10_000
        var base: Double?
        for items in sizes {
            let sub = directory.subdirectory("scale-\(items)")
            defer { directory.remove(sub) }
            let hardtack = try ScalingBenchmark.hardtack(items: items, gets: gets, seed: seed, directory: sub)
            let direct = try ScalingBenchmark.direct(items: items, gets: gets, seed: seed, directory: sub)
            var line =
                "scale items=\(items) gets=\(gets) get_p50_us=\(Report.fixed(hardtack.p50)) "
                + "get_p99_us=\(Report.fixed(hardtack.p99)) direct_get_p50_us=\(Report.fixed(direct.p50)) impl=hardtack"
            if let base {
                let ratio = hardtack.p50 / base
                line += " over_1000=\(Report.fixed(ratio, 2)) target=2.0 met=\(Report.met(ratio <= 2))"
            } else {
                base = hardtack.p50
            }
            Report.line(line)
        }
    }

    /// `hardtack status` over a signed-in store: median wall times of several runs.
    private static func status(options: BenchmarkOptions, generator: inout SeededGenerator, directory: TemporaryDirectory)
        throws
    {
        guard let executable = StatusBenchmark.locateExecutable(options.hardtack) else {
            Report.line("status skipped=yes reason=no-hardtack-executable (build it, or pass --hardtack PATH)")
            return
        }
        let store = try StatusBenchmark.prepareStore(
            directory: directory.subdirectory("status-home"), generator: &generator)
        _ = try StatusBenchmark.run(executable: executable, store: store)  // warm the page cache
        var runs: [StatusBenchmark.Figures] = []
        for _ in 0..<(options.quick ? 3 : 11) {
            runs.append(try StatusBenchmark.run(executable: executable, store: store))
        }
        let decision = runs.map(\.decision).sorted()[runs.count / 2]
        let exit = runs.map(\.exit).sorted()[runs.count / 2]
        let peak = runs.map(\.peakKiB).max() ?? 0
        let signedIn = runs.allSatisfy { $0.status == 0 }
        Report.line(
            "status runs=\(runs.count) decision_p50_ms=\(Report.fixed(decision, 2)) exit_p50_ms=\(Report.fixed(exit, 2)) "
                + "peak_rss_kib=\(peak) signed_in=\(Report.met(signedIn)) target_ms=50 met=\(Report.met(decision < 50))")
    }

    /// This process's peak resident memory so far, in KiB.
    private static func peakResidentKiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss)
    }
}
