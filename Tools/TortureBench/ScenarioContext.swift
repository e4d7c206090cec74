import BenchSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a scenario runs with: its mode and seed, a private scratch directory, the executables, and
/// the way it reports figures and failed checks.
final class ScenarioContext {
    /// The scenario being run.
    let scenario: Scenario
    /// Quick or long.
    let mode: BenchMode
    /// The bench's master seed (printed by the parent).
    let masterSeed: UInt64
    /// This scenario's seed, derived from the master seed and its name.
    let seed: UInt64
    /// The scenario's random choices.
    var random: SeededGenerator
    /// A private directory that is the scenario's alone.
    let work: String
    /// The `hardtack` executable.
    let hardtack: String
    /// This bench's own executable, for workers.
    let bench: String
    /// The package directory.
    let package: String
    /// The checks that failed, in order.
    private(set) var failures: [String] = []
    private let started = Date()

    init(
        scenario: Scenario, mode: BenchMode, masterSeed: UInt64, work: String, hardtack: String, bench: String,
        package: String
    ) {
        self.scenario = scenario
        self.mode = mode
        self.masterSeed = masterSeed
        self.seed = SeededGenerator.derive(masterSeed, scenario.name)
        self.random = SeededGenerator(seed: seed)
        self.work = work
        self.hardtack = hardtack
        self.bench = bench
        self.package = package
        makeDirectory(work + "/home")
        makeDirectory(work + "/tmp")
    }

    /// Seconds since the scenario started.
    var elapsed: Double { Date().timeIntervalSince(started) }

    /// Prints one line of figures.
    func say(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) { emit(String(line)) }
    }

    /// Records a failed check when `condition` is false; returns `condition`.
    @discardableResult
    func check(_ condition: Bool, _ message: @autoclosure () -> String) -> Bool {
        if !condition { fail(message()) }
        return condition
    }

    /// Records a failed check.
    func fail(_ message: String) {
        failures.append(message)
        emit("FAIL: \(message)")
    }

    /// A new private directory inside the scenario's scratch directory.
    func directory(_ name: String) -> String {
        let path = work + "/" + name
        removeTree(path)
        return makeDirectory(path)
    }

    /// The environment `hardtack` runs with: a private home and temporary directory, no inherited
    /// `HARDTACK_*`, and cheap Argon2id for passphrases the CLI creates.
    var sandboxEnvironment: [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": work + "/home",
            "TMPDIR": work + "/tmp",
            "LANG": "C",
            "HARDTACK_ARGON2_COST": "interactive",
        ]
    }

    /// A runner for programs, capturing into the scratch directory.
    var runner: CommandRunner {
        CommandRunner(scratch: makeDirectory(work + "/runs"), environment: sandboxEnvironment)
    }

    /// Runs `hardtack ARGUMENTS`.
    func hardtack(
        _ arguments: [String], input: String? = nil, environment: [String: String] = [:], timeout: Double = 60
    ) -> CommandRunner.Result {
        runner.run(hardtack, arguments, input: input, environment: environment, timeout: timeout)
    }

    /// Starts this bench's worker `name` with `arguments`, its standard output on a pipe.
    func startWorker(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess
    {
        try ChildProcess.spawn(
            bench, ["worker", name] + arguments, environment: sandboxEnvironment.merging(environment) { $1 },
            stdout: .pipe, stderr: .file(work + "/worker-\(name).err"))
    }

    /// The last lines a worker wrote to standard error, for a failure message.
    func workerErrors(_ name: String) -> String {
        let text = String(decoding: readFile(work + "/worker-\(name).err"), as: UTF8.self)
        return text.split(separator: "\n").suffix(5).joined(separator: " | ")
    }
}
