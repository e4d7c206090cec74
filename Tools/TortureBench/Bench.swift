import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bench's parent process: runs each selected scenario in a process of its own (so a crash or a
/// hang fails that scenario, not the bench), relays its figures, and ends with `N passed, N failed`.
struct Bench {
    let options: BenchOptions

    /// Runs the scenarios; returns the exit status (0 when none failed).
    func run() -> Int32 {
        let hardtack = options.hardtack ?? BenchPaths.hardtack(inPackage: options.package)
        guard FileManager.default.isExecutableFile(atPath: hardtack) else {
            emit("cannot find the hardtack executable at \(hardtack); build it first (Tools/torture does)")
            return 2
        }
        let selected: [Scenario]
        if options.only.isEmpty {
            selected = ScenarioCatalog.all
        } else {
            var chosen: [Scenario] = []
            for name in options.only {
                guard let scenario = ScenarioCatalog.find(name) else {
                    emit("unknown scenario '\(name)'; --list shows them")
                    return 2
                }
                chosen.append(scenario)
            }
            selected = chosen
        }
        let scratch = Self.makeScratch()
        let onlyHint = options.only.isEmpty ? "" : " --only \(options.only.joined(separator: ","))"
        emit("Hardtack torture bench: \(options.mode.rawValue) mode, seed \(options.seed)")
        emit("reproduce: Tools/torture --\(options.mode.rawValue) --seed \(options.seed)\(onlyHint)")
        emit("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores; scratch: \(scratch)")
        var passed = 0
        var failed = 0
        var summary: [String] = []
        let started = Date()
        for scenario in selected {
            emit("")
            emit("[\(scenario.number)] \(scenario.name): \(scenario.title)")
            let begun = Date()
            let verdict = runScenario(scenario, scratch: scratch, hardtack: hardtack)
            let seconds = Date().timeIntervalSince(begun)
            let line = String(format: "%@ in %.1f s", verdict.passed ? "PASS" : "FAIL (\(verdict.reason))", seconds)
            emit("  → \(line)")
            summary.append(String(format: "%2d %-12@ %@", scenario.number, scenario.name, line))
            if verdict.passed { passed += 1 } else { failed += 1 }
        }
        emit("")
        emit(
            "summary (\(options.mode.rawValue), seed \(options.seed), "
                + String(format: "%.0f s", Date().timeIntervalSince(started)) + "):")
        for line in summary { emit("  " + line) }
        if failed == 0 && !options.keep {
            removeTree(scratch)
        } else {
            emit("scratch kept for inspection: \(scratch)")
        }
        emit("\(passed) passed, \(failed) failed")
        return failed == 0 ? 0 : 1
    }

    private struct Verdict {
        let passed: Bool
        let reason: String
    }

    private func runScenario(_ scenario: Scenario, scratch: String, hardtack: String) -> Verdict {
        let work = scratch + "/\(scenario.number)-\(scenario.name)"
        let errors = scratch + "/\(scenario.number)-\(scenario.name).stderr"
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(
                BenchPaths.ownExecutable,
                [
                    "scenario", scenario.name, "--seed", "\(options.seed)", "--mode", options.mode.rawValue, "--work",
                    work, "--hardtack", hardtack, "--package", options.package,
                ], environment: ProcessInfo.processInfo.environment, stdout: .pipe, stderr: .file(errors),
                newProcessGroup: true)
        } catch {
            return Verdict(passed: false, reason: "cannot start: \(error)")
        }
        // Every scenario stops by itself well before these limits; they only catch a bench bug. (Quick
        // mode's was 15 minutes until the sanitizer scenario, a build of about 5 and a sanitized suite of
        // about 10 on two cores, came within seconds of it.)
        let limit = options.mode.pick(25.0 * 60, 150.0 * 60)
        let deadline = Date().addingTimeInterval(limit)
        let reader = LineReader(child.stdoutPipe!)
        var verdict: Verdict?
        reading: while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else {
                child.killGroup(SIGKILL)
                child.wait()
                return Verdict(passed: false, reason: "still running after \(Int(limit)) s; killed")
            }
            switch reader.next(timeout: left) {
            case .line(let line):
                if line.hasPrefix("VERDICT ") {
                    let rest = line.dropFirst("VERDICT ".count)
                    verdict = Verdict(
                        passed: rest == "pass",
                        reason: rest.hasPrefix("fail: ") ? String(rest.dropFirst(6)) : String(rest))
                } else {
                    emit("    " + line)
                }
            case .end:
                break reading
            case .timeout:
                continue
            }
        }
        let termination =
            child.wait(timeout: 30)
            ?? {
                child.killGroup(SIGKILL)
                return child.wait()
            }()
        // Anything the scenario left running in its group goes with it.
        child.killGroup(SIGKILL)
        if let verdict, termination == .exited(verdict.passed ? 0 : 1) { return verdict }
        let tail = String(decoding: readFile(errors), as: UTF8.self).split(separator: "\n").suffix(8)
        for line in tail { emit("    stderr: " + line) }
        return Verdict(
            passed: false,
            reason: "the scenario process ended without a verdict (\(termination.map { "\($0)" } ?? "hung"))")
    }

    private static func makeScratch() -> String {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/hardtack-torture-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard let made else { return makeDirectory(base + "/hardtack-torture-\(getpid())") }
        return String(cString: made)
    }
}
