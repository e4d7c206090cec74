#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs numbered trials in a worker process, one line `T <index> <outcome>` per trial, so that a trial
/// that crashes the worker (a signal, a trap) or hangs it is counted and skipped, and the rest go on
/// in a fresh worker. The worker takes `--from A --to B` besides its own arguments.
struct TrialRunner {
    /// A trial that ended its worker.
    struct Incident {
        /// The trial's index.
        let index: Int
        /// What happened (`killed by signal 11`, `hung`).
        let what: String
    }

    let context: ScenarioContext
    /// The worker's name.
    let worker: String
    /// Its arguments besides `--from` and `--to`.
    let arguments: [String]
    /// Seconds a single trial may take before it counts as a hang.
    let trialTimeout: Double
    /// Give up after this many incidents (something is badly broken; they are all failures anyway).
    var maximumIncidents = 25

    /// Runs trials `range`, handing each one's outcome to `record`.
    /// - Returns: the trials that crashed or hung their worker.
    func run(_ range: Range<Int>, record: (Int, Substring) -> Void) -> [Incident] {
        var incidents: [Incident] = []
        var next = range.lowerBound
        while next < range.upperBound && incidents.count < maximumIncidents {
            let child: ChildProcess
            do {
                child = try context.startWorker(
                    worker, arguments + ["--from", "\(next)", "--to", "\(range.upperBound)"])
            } catch {
                context.fail("cannot start the \(worker) worker: \(error)")
                return incidents
            }
            let reader = LineReader(child.stdoutPipe!)
            var finished = false
            var hung = false
            reading: while true {
                switch reader.next(timeout: trialTimeout) {
                case .line(let line):
                    if line == "DONE" {
                        finished = true
                        break reading
                    }
                    guard line.hasPrefix("T ") else { continue }
                    let parts = line.dropFirst(2).split(separator: " ", maxSplits: 1)
                    guard let index = parts.first.flatMap({ Int($0) }) else { continue }
                    record(index, parts.count > 1 ? parts[1] : "")
                    next = index + 1
                case .end:
                    break reading
                case .timeout:
                    hung = true
                    break reading
                }
            }
            if hung {
                child.killAndReap()
                incidents.append(Incident(index: next, what: "hung (no answer in \(Int(trialTimeout)) s)"))
                next += 1
                continue
            }
            let termination = child.wait(timeout: 30) ?? child.killAndReap()
            if finished && termination == .exited(0) { break }
            if next < range.upperBound {
                incidents.append(
                    Incident(
                        index: next,
                        what: "\(termination.map { "\($0)" } ?? "no status") — \(context.workerErrors(worker))"))
                next += 1
            }
        }
        return incidents
    }
}
