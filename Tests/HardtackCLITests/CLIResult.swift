import Foundation

/// What one run of the `hardtack` executable did.
struct CLIResult: Sendable {
    /// The exit status.
    let status: Int32
    /// Everything written to standard output.
    let stdout: String
    /// Everything written to standard error.
    let stderr: String
    /// Seconds from its start to its end, as the thread that waited for it saw them (not counting the wait
    /// of a busy test process's task to hear of the end); `nil` where not measured.
    var elapsed: TimeInterval? = nil
}
