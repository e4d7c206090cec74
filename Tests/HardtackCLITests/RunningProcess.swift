import Foundation
import TestSupport

/// A child process started by ``CLISandbox/launch(_:_:input:environment:)``, its output going to files.
struct RunningProcess {
    /// The process.
    let process: Process
    /// Where its standard output goes.
    let outPath: String
    /// Where its standard error goes.
    let errPath: String
    /// When it was started.
    let started: Date

    /// Waits for it to exit and returns what it did, on a thread of its own: a test blocked for a whole run
    /// of `hardtack` on one of Swift's few shared threads starved every other test's tasks (on two cores,
    /// two such tests left none), and their servers' and clients' timeouts struck.
    func wait() async -> CLIResult {
        let process = process
        let ended = await DedicatedThread.run {
            process.waitUntilExit()
            return Date()
        }
        var result = result
        result.elapsed = ended.timeIntervalSince(started)
        return result
    }

    /// What it wrote to standard output so far.
    var outputSoFar: String { String(decoding: FileBytes.read(outPath), as: UTF8.self) }

    /// What it wrote to standard error so far.
    var errorsSoFar: String { String(decoding: FileBytes.read(errPath), as: UTF8.self) }

    /// What it did, once it has exited.
    private var result: CLIResult {
        CLIResult(status: process.terminationStatus, stdout: outputSoFar, stderr: errorsSoFar)
    }

    /// Waits for a process just told to stop (`terminate`, SIGTERM) on this thread, for a `defer`, where
    /// nothing can be awaited: its wait is short.
    func waitAfterStop() -> CLIResult {
        process.waitUntilExit()
        return result
    }
}

extension [RunningProcess] {
    /// Waits for each to exit, in order, and returns what each did.
    func waitAll() async -> [CLIResult] {
        var results: [CLIResult] = []
        for running in self { results.append(await running.wait()) }
        return results
    }
}
