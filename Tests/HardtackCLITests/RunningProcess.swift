import Foundation
import TestSupport
import Testing

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

    /// Looks at what it wrote every 20 ms until `found` finds what it waits for, and returns that; `nil`
    /// when it ended without writing it, or after `bound` seconds. The bound is only against a hang: under a
    /// sanitizer on a busy machine, a start that takes milliseconds can take seconds.
    func awaitOutput<Found>(bound: TimeInterval = 60, _ found: (RunningProcess) -> Found?) async throws -> Found? {
        let deadline = Date() + bound
        while true {
            // Read after the check for its end: what it wrote before it ended is still found.
            let ended = !process.isRunning
            if let value = found(self) { return value }
            if ended || Date() >= deadline { return nil }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// What it did, once it has exited.
    private var result: CLIResult {
        CLIResult(status: process.terminationStatus, stdout: outputSoFar, stderr: errorsSoFar)
    }

    /// Waits for a process just told to stop (`terminate`, SIGTERM) on this thread, for a `defer`, where
    /// nothing can be awaited: its wait is short. One still running after 120 s (it did not take the signal;
    /// a gateway's stop takes at most its 10 s grace and 60 s to settle) is killed and the test records why,
    /// rather than waiting for ever.
    func waitAfterStop() -> CLIResult {
        let deadline = Date() + 120
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            Issue.record("\(process.executableURL?.lastPathComponent ?? "the process") still ran 120 s after it was told to stop")
        }
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
