/// What one run of the `hardtack` executable did.
struct CLIResult: Sendable {
    /// The exit status.
    let status: Int32
    /// Everything written to standard output.
    let stdout: String
    /// Everything written to standard error.
    let stderr: String
}
