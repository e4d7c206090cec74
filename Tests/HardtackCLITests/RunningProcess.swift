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

    /// Waits for it to exit and returns what it did.
    func wait() -> CLIResult {
        process.waitUntilExit()
        return CLIResult(
            status: process.terminationStatus,
            stdout: String(decoding: FileBytes.read(outPath), as: UTF8.self),
            stderr: String(decoding: FileBytes.read(errPath), as: UTF8.self))
    }
}
