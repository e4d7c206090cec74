/// Where a program's text goes: standard output for help, the version and results; standard error for
/// one-line errors (the writer adds any program-name prefix).
public struct ProgramOutput: Sendable {
    /// Writes a text and a newline to standard output.
    public let standardOutput: @Sendable (String) -> Void
    /// Writes an error message and a newline to standard error.
    public let standardError: @Sendable (String) -> Void

    /// Creates an output from its two writers.
    public init(
        standardOutput: @escaping @Sendable (String) -> Void, standardError: @escaping @Sendable (String) -> Void
    ) {
        self.standardOutput = standardOutput
        self.standardError = standardError
    }
}
