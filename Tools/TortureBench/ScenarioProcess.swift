import Foundation

/// The process that runs one scenario: `hardtack-torture scenario NAME --seed N --mode M --work DIR
/// --hardtack PATH --package DIR`. It prints the scenario's figures, then `VERDICT pass` or
/// `VERDICT fail`, which the parent reads.
enum ScenarioProcess {
    /// Runs the scenario the arguments name; returns the exit status.
    static func run(_ arguments: [String]) -> Int32 {
        var values: [String: String] = [:]
        var index = 1
        while index + 1 < arguments.count {
            values[arguments[index]] = arguments[index + 1]
            index += 2
        }
        guard let name = arguments.first, let scenario = ScenarioCatalog.find(name),
            let seedText = values["--seed"], let seed = UInt64(seedText),
            let mode = values["--mode"].flatMap(BenchMode.init(rawValue:)), let work = values["--work"],
            let hardtack = values["--hardtack"], let package = values["--package"]
        else {
            emit("VERDICT fail: bad scenario arguments")
            return 2
        }
        let context = ScenarioContext(
            scenario: scenario, mode: mode, masterSeed: seed, work: makeDirectory(work), hardtack: hardtack,
            bench: BenchPaths.ownExecutable, package: package)
        context.say("seed \(context.seed) (derived from \(seed) and '\(scenario.name)')")
        scenario.run(context)
        if context.failures.isEmpty {
            emit("VERDICT pass")
            return 0
        }
        emit("VERDICT fail: \(context.failures.count) check\(context.failures.count == 1 ? "" : "s") failed")
        return 1
    }
}
