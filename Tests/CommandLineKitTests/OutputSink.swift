import CommandLineKit
import Synchronization

/// Collects what a program writes to its two streams.
final class OutputSink: Sendable {
    private let state = Mutex<(lines: [String], errors: [String])>(([], []))

    /// The lines written to standard output.
    var lines: [String] { state.withLock { $0.lines } }
    /// The lines written to standard error.
    var errors: [String] { state.withLock { $0.errors } }

    /// An output that records into this sink.
    var output: ProgramOutput {
        ProgramOutput(
            standardOutput: { text in self.state.withLock { $0.lines.append(text) } },
            standardError: { text in self.state.withLock { $0.errors.append(text) } })
    }
}
